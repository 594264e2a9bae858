import { X509Certificate } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import {
  createCertificateAuthority,
  issueServingCertificate,
  writeCertificateFiles,
  type CertificatePair,
} from '@tandem/serving';
import {
  REPO_ROOT,
  startApp,
  stopAllApps,
  type AppBinary,
  type AppProcess,
} from './app-process.ts';
import { clusterKubeconfig } from './cluster-env.ts';
import { httpStatusOf, type KubeClients } from './kube.ts';
import { installTandemCrds } from './manifests.ts';
import { waitFor } from './wait.ts';

export const WEBHOOK: AppBinary = {
  project: 'admission-webhook',
  bin: join(
    REPO_ROOT,
    'apps',
    'admission-webhook',
    'bin',
    'tandem-admission-webhook.mjs',
  ),
  distMain: join(REPO_ROOT, 'apps', 'admission-webhook', 'dist', 'main.js'),
};

/** A CA and a serving certificate for 127.0.0.1, written under upstream's file names. */
export interface WebhookCertificates {
  dir: string;
  ca: CertificatePair;
  caCertFile: string;
  certFile: string;
  keyFile: string;
  /** Writes a new serving pair signed by `ca` (or by a new CA), as a rotation would. */
  rotate(options?: {
    newCa?: boolean;
  }): Promise<{ ca: CertificatePair; serving: CertificatePair }>;
}

export async function webhookCertificates(): Promise<WebhookCertificates> {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-webhook-certs-'));
  const issue = (ca: CertificatePair) =>
    issueServingCertificate(ca, {
      commonName: '127.0.0.1',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
    });
  const ca = createCertificateAuthority({
    commonName: 'tandem-e2e-webhook-ca',
  });
  const files = await writeCertificateFiles(dir, { ca, serving: issue(ca) });
  const certificates: WebhookCertificates = {
    dir,
    ca,
    caCertFile: files.caCertFile,
    certFile: files.certFile,
    keyFile: files.keyFile,
    async rotate({ newCa = false } = {}) {
      const nextCa = newCa
        ? createCertificateAuthority({ commonName: 'tandem-e2e-webhook-ca-2' })
        : certificates.ca;
      const serving = issue(nextCa);
      await writeCertificateFiles(dir, { ca: nextCa, serving });
      certificates.ca = nextCa;
      return { ca: nextCa, serving };
    },
  };
  return certificates;
}

export interface StartWebhookOptions {
  kubeconfig: string;
  certificates: WebhookCertificates;
  /** More flags, e.g. `--register-webhook=false`. */
  extraArgs?: string[];
  env?: Record<string, string>;
}

/**
 * Starts the admission webhook on a free loopback port, registered by URL with its CA
 * bundle (the API server calls it on 127.0.0.1), and resolves once its HTTPS server
 * listens; `url` is that server. Registration follows once its caches have synced: wait
 * for the "webhook registered" log line before relying on it.
 */
export function startWebhook({
  kubeconfig,
  certificates,
  extraArgs = [],
  env,
}: StartWebhookOptions): Promise<AppProcess> {
  return startApp({
    app: WEBHOOK,
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--client-ca-file=${certificates.caCertFile}`,
      `--tls-cert-file=${certificates.certFile}`,
      `--tls-private-key=${certificates.keyFile}`,
      '--port=0',
      '--address=127.0.0.1:0',
      '--register-by-url',
      '--webhook-address=https://127.0.0.1',
      '--status-lease-update-interval=2s',
      ...extraArgs,
    ],
    env,
    readyMessage: 'webhook server listening',
  });
}

/**
 * Waits until the webhook logged that it registered `vpa-webhook-config` (after its caches
 * synced): only then does the API server call it. A timeout shows its last lines.
 */
export async function waitForRegistration(webhook: AppProcess): Promise<void> {
  await waitFor(
    'the webhook to register vpa-webhook-config',
    async () =>
      webhook.entries().some((entry) => entry.msg === 'webhook registered')
        ? true
        : undefined,
    { timeoutMs: 60_000 },
    async () => webhook.tail(10),
  );
}

/** One HTTPS POST to the webhook, trusting `caPem`: status, body and the served certificate. */
export function postToWebhook(
  url: string,
  caPem: string,
  body: string,
  contentType = 'application/json',
): Promise<{ status: number; body: string; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      url,
      {
        method: 'POST',
        ca: caPem,
        agent: false,
        headers: { 'content-type': contentType },
      },
      (response) => {
        const fingerprint = (response.socket as TLSSocket).getPeerCertificate()
          .fingerprint256;
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: text,
            fingerprint,
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The SHA-256 fingerprint of a PEM certificate, in the form TLS sockets report it. */
export function fingerprintOf(certPem: string): string {
  return new X509Certificate(certPem).fingerprint256;
}

/** Deletes the webhook's self-registration, so pods created later do not call a stopped process. */
export async function deleteWebhookConfiguration(
  kube: KubeClients,
): Promise<void> {
  await kube.config
    .makeApiClient(AdmissionregistrationV1Api)
    .deleteMutatingWebhookConfiguration({ name: 'vpa-webhook-config' })
    .catch((error: unknown) => {
      if (httpStatusOf(error) !== 404) throw error;
    });
}

/**
 * For a suite that needs pods sized at creation: before its tests, the webhook of every
 * namespace but kube-system, registered with the API server (and the VPA CRDs it reads);
 * after them, every app the suite started is stopped and the registration deleted.
 */
export function useRegisteredWebhook(kube: KubeClients): void {
  beforeAll(async () => {
    await installTandemCrds(kube);
    const webhook = await startWebhook({
      kubeconfig: clusterKubeconfig(),
      certificates: await webhookCertificates(),
      extraArgs: ['--ignored-vpa-object-namespaces=kube-system'],
    });
    await waitForRegistration(webhook);
  });
  afterAll(async () => {
    await stopAllApps();
    await deleteWebhookConfiguration(kube);
  });
}
