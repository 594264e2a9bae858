import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:tls';
import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import {
  startApp,
  stopAllApps,
  type AppProcess,
} from '../harness/app-process.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import {
  admissionStream,
  type AdmissionStream,
} from '../harness/admission-stream.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  startRoundRobin,
  type RoundRobin,
} from '../harness/tcp-round-robin.ts';
import { vpaObjects } from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';
import {
  deleteWebhookConfiguration,
  waitForRegistration,
  WEBHOOK,
} from '../harness/webhook-process.ts';

// Two webhook processes share one Secret and renew their certificates in-process, with
// lifetimes short enough that three serving-certificate renewals and one CA rotation
// (staged at +60 s, promoted at +70 s, the old CA retired at +80 s) pass in about 90 s.
const LIFETIMES = [
  '--cert-validity=30s',
  '--ca-validity=90s',
  '--ca-overlap=10s',
];
const describeLocal = isLocalCluster() ? describe : describe.skip;

const { kube, namespace } = useTestNamespace('certrot');
const registrations = kube.config.makeApiClient(AdmissionregistrationV1Api);
const vpas = vpaObjects(kube, () => namespace());

/** The caBundle the API server verifies the webhook with now, as PEM. */
async function registeredBundle(): Promise<string> {
  const configuration = await registrations.readMutatingWebhookConfiguration({
    name: 'vpa-webhook-config',
  });
  return Buffer.from(
    configuration.webhooks?.[0]?.clientConfig.caBundle ?? '',
    'base64',
  ).toString();
}

/** The certificates of a PEM bundle. */
const certificates = (bundle: string) =>
  bundle
    .split(/(?<=-----END CERTIFICATE-----\n)/)
    .filter((pem) => pem.includes('BEGIN CERTIFICATE'))
    .map((pem) => new X509Certificate(pem));

/**
 * A TLS handshake with a webhook process trusting `caPem`, as the API server makes one:
 * the served certificate and the CA it chains to, or the reason it was refused.
 */
function handshake(
  port: number,
  caPem: string,
): Promise<{ leaf: string; issuer: string } | { refused: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca: caPem }, () => {
      const leaf = new X509Certificate(socket.getPeerCertificate().raw);
      const issuer = certificates(caPem).find(
        (ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey),
      );
      resolve({
        leaf: leaf.fingerprint256,
        issuer: issuer?.fingerprint256 ?? '',
      });
      socket.end();
    });
    socket.once('error', (error) => resolve({ refused: error.message }));
  });
}

/** The SHA-256 fingerprints of the certificates in a PEM bundle, sorted. */
const fingerprints = (bundle: string) =>
  certificates(bundle)
    .map((certificate) => certificate.fingerprint256)
    .sort();

const logged = (app: AppProcess, msg: string) =>
  app.entries().filter((entry) => entry.msg === msg);

describeLocal(
  'certificates renewed in two running webhooks sharing one Secret',
  () => {
    const dirs: string[] = [];
    let proxy: RoundRobin;
    let webhooks: AppProcess[] = [];
    let stream: AdmissionStream;
    const ports = () =>
      webhooks.map((webhook) => Number(new URL(webhook.url).port));

    beforeAll(async () => {
      await installTandemCrds(kube);
      // Pods owned by Deployment `web` get its VPA's recommendation and the annotation.
      stream = await admissionStream(kube, vpas, namespace(), 'web');
      // The API server calls one URL; the proxy spreads its connections over both.
      proxy = await startRoundRobin(ports);
      const start = (name: string) => {
        const dir = mkdtempSync(join(tmpdir(), `tandem-certrot-${name}-`));
        dirs.push(dir);
        return startApp({
          app: WEBHOOK,
          args: [
            `--kubeconfig=${clusterKubeconfig()}`,
            `--certs-secret=${namespace()}/webhook-certs`,
            `--certs-dir=${dir}`,
            '--certs-ip-addresses=127.0.0.1',
            ...LIFETIMES,
            '--port=0',
            '--address=127.0.0.1:0',
            '--register-by-url',
            '--webhook-address=https://127.0.0.1',
            `--webhook-port=${proxy.port}`,
            '--ignored-vpa-object-namespaces=kube-system',
            '--status-lease-update-interval=2s',
          ],
          // One log line per review: a timeout shows which replica saw which pod.
          env: { LOG_LEVEL: 'debug' },
          readyMessage: 'webhook server listening',
        });
      };
      // Started together: they race to create the Secret, and one adopts the other's CA.
      webhooks = await Promise.all([start('a'), start('b')]);
      await Promise.all(webhooks.map(waitForRegistration));
    });

    afterAll(async () => {
      await stopAllApps();
      await deleteWebhookConfiguration(kube);
      await proxy?.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it('admits every pod while serving certificates renew and the CA rotates, both replicas on one CA', async () => {
      await stream.firstAdmitted();

      const refused: string[] = [];
      const issuers = new Map<number, Set<string>>();
      // Each distinct caBundle registered, as the sorted fingerprints of its CAs.
      const bundles: string[][] = [];
      let running = true;
      stream.start();
      const probing = (async () => {
        while (running) {
          const bundle = await registeredBundle();
          const cas = fingerprints(bundle);
          if (cas.join() !== bundles.at(-1)?.join()) bundles.push(cas);
          for (const port of ports()) {
            const answer = await handshake(port, bundle);
            if ('refused' in answer) refused.push(`${port}: ${answer.refused}`);
            else
              issuers.set(
                port,
                (issuers.get(port) ?? new Set()).add(answer.issuer),
              );
          }
          await sleep(200);
        }
      })();

      // Three renewals after the first certificate, and the first CA retired: from the
      // Secret, then from the registration (a replica registers the new bundle after it).
      await waitFor(
        'three serving-certificate renewals per replica and one CA rotation, registered',
        async () =>
          webhooks.every(
            (webhook) =>
              logged(webhook, 'serving certificate issued').length >= 4,
          ) &&
          webhooks.some((webhook) =>
            logged(webhook, 'certificate Secret updated').some((entry) =>
              (entry['changes'] as string[]).includes('retired'),
            ),
          ) &&
          bundles.length >= 3
            ? true
            : undefined,
        { timeoutMs: 150_000, intervalMs: 1000 },
        async () =>
          webhooks
            .map((webhook) =>
              logged(webhook, 'serving certificate issued')
                .map((entry) => entry['reason'])
                .join(','),
            )
            .join(' | ')
            .concat(`; ${bundles.length} bundles registered`),
      );
      running = false;
      const [{ created, skipped }] = await Promise.all([
        stream.stop(),
        probing,
      ]);

      expect({ skipped, refused }).toEqual({ skipped: [], refused: [] });
      expect(created).toBeGreaterThan(100);
      // Both replicas signed with the same CAs, in the same order: the shared one.
      // (Only the first two count: under load the next rotation may already have begun.)
      const authorities = webhooks.map((webhook) =>
        logged(webhook, 'certificate authority in force')
          .map((entry) => String(entry['signing']))
          .slice(0, 2),
      );
      expect(authorities[0]).toHaveLength(2);
      expect(authorities[1]).toEqual(authorities[0]);
      const served = [...issuers.values()].map((set) => [...set].sort());
      expect(served).toHaveLength(2);
      expect(served[1]).toEqual(served[0]);
      // The first CA alone, then old and new trusted together, then the new one alone.
      const [first = '', second = ''] = authorities[0] ?? [];
      expect(bundles.slice(0, 3)).toEqual([
        [first],
        [first, second].sort(),
        [second],
      ]);
      // The API server's connections reached both replicas.
      expect([...proxy.connections().keys()].sort()).toEqual(
        [...ports()].sort(),
      );
    });
  },
);
