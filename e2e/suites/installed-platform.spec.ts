import { X509Certificate } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  AdmissionregistrationV1Api,
  CoordinationV1Api,
} from '@kubernetes/client-node';
import { parseMemoryBytes, PodAnnotation } from '@tandem/vpa-api';
import { isInstalledPlatform } from '../harness/cluster-env.ts';
import { CHART_APPS } from '../harness/helm-chart-files.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  deploymentOf,
  installedLogs,
  installedPods,
  PLATFORM_NAMESPACE,
} from '../harness/platform-apps.ts';
import { apiServerGet, describeResponse } from '../harness/raw-get.ts';
import {
  cpuCgroupOf,
  createRealDeployment,
  describePod,
  expectedCgroup,
  kubectl,
  UPDATER_CYCLE_MS,
} from '../harness/real-pods.ts';
import {
  vpaObjects,
  appRecommendation,
  MANUAL_RECOMMENDER,
} from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';
import {
  createInvalidVpa,
  UPSTREAM_INVALID_VPA_MESSAGE,
} from '../harness/webhook-expectations.ts';
import {
  cpuRequestOf,
  isRunningAndReady,
  listPods,
} from '../harness/workloads.ts';

// The platform as a user installs it (`kubectl apply -k deploy/`, e2e/kind/platform.sh)
// on kind, whose node runs a real kubelet: the API server calls the webhook and the
// adapter through their Services, and the updater's in-place resizes are carried out by
// the kubelet, down to the container's cgroup.
const describeInstalled = isInstalledPlatform() ? describe : describe.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('installed');
const vpas = vpaObjects(kube, () => currentNamespace());

/** The CPU bounds given; memory always 32Mi within [16Mi, 64Mi]. */
const recommendation = (target: string, lower: string, upper: string) =>
  appRecommendation([target, lower, upper], ['32Mi', '16Mi', '64Mi']);
/** The SHA-256 fingerprints of the certificates in a base64 PEM bundle (any line ends). */
function fingerprints(base64Pem: string | undefined): string[] {
  const pem = Buffer.from(base64Pem ?? '', 'base64').toString();
  return (
    pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ??
    []
  ).map((certificate) => new X509Certificate(certificate).fingerprint256);
}

const WEBHOOK_DEPLOYMENT = deploymentOf('admission-webhook');
/** Every app `kubectl apply -k deploy/` runs, by its deploy/ folder (`deploymentOf`'s name). */
const INSTALLED_APPS = CHART_APPS.map(({ folder }) => folder);
/** The Secret that holds the install's webhook CA (the webhook keeps it, ADR 0017). */
const WEBHOOK_SECRET = 'tandem-admission-webhook-certs';

/** Scales the installed webhook and waits until exactly that many replicas serve. */
async function scaleWebhook(replicas: number): Promise<void> {
  await kube.apps.patchNamespacedDeploymentScale({
    namespace: PLATFORM_NAMESPACE,
    name: WEBHOOK_DEPLOYMENT,
    body: [{ op: 'replace', path: '/spec/replicas', value: replicas }],
  });
  await waitFor(
    `${WEBHOOK_DEPLOYMENT} at ${replicas} serving replicas`,
    async () => {
      const pods = await installedPods(kube, 'admission-webhook');
      return pods.length === replicas &&
        pods.filter(isRunningAndReady).length === replicas
        ? true
        : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 1000 },
  );
}

describeInstalled(
  'the platform installed with `kubectl apply -k deploy/`, on a real kubelet',
  () => {
    it('gives new pods the recommendation through the webhook’s Service, and records what was declared', async () => {
      await vpas.createVpa('web', 'web', {
        ...MANUAL_RECOMMENDER,
        updatePolicy: { updateMode: 'Initial' },
      });
      await vpas.writeRecommendation(
        'web',
        recommendation('120m', '100m', '200m'),
      );
      const declared = {
        requests: { cpu: '50m', memory: '32Mi' },
        limits: { cpu: '100m', memory: '64Mi' },
      };
      const pods = await createRealDeployment(
        kube,
        currentNamespace(),
        'web',
        2,
        {
          command: ['sleep', 'infinity'],
          resources: declared,
        },
      );
      const webhookLogs = await installedLogs(kube, 'admission-webhook', 40);
      // The declared limit-to-request ratio (2) is kept.
      const expected = {
        resources: {
          requests: { cpu: '120m', memory: '32Mi' },
          limits: { cpu: '240m', memory: '64Mi' },
        },
        originals: { app: declared },
      };
      for (const pod of pods) {
        const admitted = JSON.parse(
          JSON.stringify({
            resources: pod.spec?.containers[0]?.resources,
            originals: JSON.parse(
              pod.metadata?.annotations?.[PodAnnotation.originalResources] ??
                'null',
            ) as unknown,
          }),
        ) as unknown;
        // Thrown whole rather than diffed, so the webhook's log lines all show.
        if (!isDeepStrictEqual(admitted, expected))
          throw new Error(
            `${describePod(pod)} was admitted as ${JSON.stringify(admitted)}, not ${JSON.stringify(expected)}; webhook:\n${webhookLogs}`,
          );
      }
    });

    it('registered itself by its Service, fail-open, trusting the CA its Secret holds', async () => {
      const configuration = await kube.config
        .makeApiClient(AdmissionregistrationV1Api)
        .readMutatingWebhookConfiguration({ name: 'vpa-webhook-config' });
      const [entry, ...others] = configuration.webhooks ?? [];
      const secret = await kube.core.readNamespacedSecret({
        namespace: PLATFORM_NAMESPACE,
        name: WEBHOOK_SECRET,
      });
      expect({
        others,
        name: entry?.name,
        failurePolicy: entry?.failurePolicy,
        service: entry?.clientConfig.service,
        // The bundle holds the signing CA, and a second one while a rotation overlaps.
        trusted: fingerprints(entry?.clientConfig.caBundle).includes(
          fingerprints(secret.data?.['caCert.pem'])[0] ?? 'no signing CA',
        ),
      }).toEqual({
        others: [],
        name: 'vpa.k8s.io',
        failurePolicy: 'Ignore',
        service: expect.objectContaining({
          namespace: PLATFORM_NAMESPACE,
          name: 'vpa-webhook',
        }),
        trusted: true,
      });
    });

    it('sizes each app’s heap to three quarters of its container’s memory limit (ADR 0040)', async () => {
      // Node's default is about 55 %; the image's NODE_OPTIONS raises it, and Node must
      // find the limit in the container's cgroup for either to follow the manifest.
      const heaps = await Promise.all(
        INSTALLED_APPS.map(async (app) => {
          const pod = (await installedPods(kube, app)).find(isRunningAndReady);
          const container = pod?.spec?.containers[0];
          const limit = container?.resources?.limits?.['memory'];
          if (
            pod === undefined ||
            container === undefined ||
            limit === undefined
          )
            return { app, found: 'no ready pod with a memory limit' };
          const [constrained, heapLimit] = JSON.parse(
            await kubectl(
              '-n',
              PLATFORM_NAMESPACE,
              'exec',
              pod.metadata?.name ?? '',
              '-c',
              container.name,
              '--',
              'node',
              '-p',
              'JSON.stringify([process.constrainedMemory(), require("v8").getHeapStatistics().heap_size_limit])',
            ),
          ) as [number, number];
          const limitBytes = parseMemoryBytes(limit);
          return {
            app,
            found: {
              constrainedToTheLimit: constrained === limitBytes,
              // The old space is 75 % of the limit, the young generation on top
              // (76 % of 512Mi, 80 % of 1Gi in all); Node's default would be 55 %.
              heapShareOfLimit:
                heapLimit / limitBytes >= 0.7 && heapLimit / limitBytes <= 0.9
                  ? 'three quarters and the young generation'
                  : heapLimit / limitBytes,
            },
          };
        }),
      );
      expect(heaps).toEqual(
        INSTALLED_APPS.map((app) => ({
          app,
          found: {
            constrainedToTheLimit: true,
            heapShareOfLimit: 'three quarters and the young generation',
          },
        })),
      );
    });

    it('refuses an invalid VPA with upstream’s message', async () => {
      expect(await createInvalidVpa(vpas, 'invalid', 'web')).toEqual({
        status: 422,
        message: expect.stringMatching(UPSTREAM_INVALID_VPA_MESSAGE),
      });
    });

    it('renews upstream’s status Lease, and exports upstream’s admission metrics', async () => {
      const leases = kube.config.makeApiClient(CoordinationV1Api);
      const renewTime = async () =>
        new Date(
          (
            await leases.readNamespacedLease({
              // The webhook's own namespace, where the updater looks for it too.
              namespace: PLATFORM_NAMESPACE,
              name: 'vpa-admission-controller',
            })
          ).spec?.renewTime ?? 0,
        ).getTime();
      const first = await renewTime();
      // Upstream's --status-lease-update-interval is 10 s.
      await waitFor(
        'the status Lease to be renewed',
        async () => ((await renewTime()) > first ? true : undefined),
        { timeoutMs: 30_000 },
        async () => installedLogs(kube, 'admission-webhook', 15),
      );
      // Through the API server's proxy to each webhook pod's ops port; the pods of the
      // first test went through one of them.
      const pods = await installedPods(kube, 'admission-webhook');
      const bodies = await Promise.all(
        pods.map(async (pod) => {
          const answer = await apiServerGet(
            kube.config,
            `/api/v1/namespaces/${PLATFORM_NAMESPACE}/pods/${pod.metadata?.name}:8944/proxy/metrics`,
          );
          expect({
            status: answer.status,
            text: answer.text.slice(0, 300),
          }).toEqual({
            status: 200,
            text: expect.any(String),
          });
          return answer.text;
        }),
      );
      expect(bodies.join('\n')).toMatch(
        /vpa_admission_controller_admission_pods_total\{applied="true"\} [1-9]/,
      );
    });

    it('fails open: with the webhook scaled to zero, pods are still created, as declared', async () => {
      await scaleWebhook(0);
      try {
        const [pod] = await createRealDeployment(
          kube,
          currentNamespace(),
          'unserved',
          1,
          {
            command: ['sleep', 'infinity'],
            resources: { requests: { cpu: '50m', memory: '32Mi' } },
          },
        );
        expect({
          originals:
            pod?.metadata?.annotations?.[PodAnnotation.originalResources],
          requests: pod?.spec?.containers[0]?.resources?.requests,
        }).toEqual({
          originals: undefined,
          requests: { cpu: '50m', memory: '32Mi' },
        });
      } finally {
        await scaleWebhook(2);
      }
    });

    it('serves custom.metrics.k8s.io through the aggregator and the adapter’s Service', async () => {
      const discovery = await apiServerGet(
        kube.config,
        '/apis/custom.metrics.k8s.io/v1beta2',
      );
      expect({
        status: discovery.status,
        kind: (discovery.body as { kind?: string }).kind,
        context: describeResponse(discovery),
      }).toEqual({
        status: 200,
        kind: 'APIResourceList',
        context: expect.any(String),
      });
      const names = (
        discovery.body as { resources: { name: string }[] }
      ).resources.map((resource) => resource.name);
      expect(names).toContain('pods/cpu_utilization_of_original_request');
    });

    it('resizes a running pod in place: same UID, no restart, and the cgroup follows', async () => {
      const [pod] = await createRealDeployment(
        kube,
        currentNamespace(),
        'burner',
        1,
        {
          resources: {
            requests: { cpu: '100m', memory: '32Mi' },
            limits: { cpu: '200m', memory: '64Mi' },
          },
        },
      );
      const name = pod?.metadata?.name ?? '';
      const before = await cpuCgroupOf(currentNamespace(), name);
      expect(before).toEqual(expectedCgroup(100, 200, before.version));

      await vpas.createVpa('burner', 'burner', {
        ...MANUAL_RECOMMENDER,
        updatePolicy: { updateMode: 'InPlaceOrRecreate', minReplicas: 1 },
      });
      await vpas.writeRecommendation(
        'burner',
        recommendation('300m', '250m', '400m'),
      );
      // Resized when the kubelet reports the new allocation in the pod's status (and the
      // updater's second write, the annotation, has landed).
      const resized = await waitFor(
        'the burner resized in place to 300m, annotated, and the kubelet reporting it',
        async () => {
          const [current] = await listPods(kube, currentNamespace(), 'burner');
          return current !== undefined &&
            cpuRequestOf(current) === '300m' &&
            current.metadata?.annotations?.[PodAnnotation.vpaInPlaceUpdated] ===
              'true' &&
            current.status?.containerStatuses?.[0]?.resources?.requests?.[
              'cpu'
            ] === '300m'
            ? current
            : undefined;
        },
        { timeoutMs: 2 * UPDATER_CYCLE_MS + 30_000, intervalMs: 1000 },
        async () =>
          `${describePod((await listPods(kube, currentNamespace(), 'burner'))[0])}\nupdater:\n${await installedLogs(kube, 'updater', 15)}`,
      );
      expect({
        uid: resized.metadata?.uid,
        restarts: resized.status?.containerStatuses?.[0]?.restartCount,
        limits: resized.spec?.containers[0]?.resources?.limits,
      }).toEqual({
        uid: pod?.metadata?.uid,
        restarts: 0,
        // The limit keeps its declared ratio to the request.
        limits: { cpu: '600m', memory: '64Mi' },
      });
      const after = await waitFor(
        'the container cgroup to hold the new CPU request and limit',
        async () => {
          const cgroup = await cpuCgroupOf(currentNamespace(), name);
          return cgroup.quota === 60_000 ? cgroup : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 1000 },
        async () => JSON.stringify(await cpuCgroupOf(currentNamespace(), name)),
      );
      expect(after).toEqual(expectedCgroup(300, 600, before.version));
    });
  },
);
