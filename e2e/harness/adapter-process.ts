import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
  writeCertificateFiles,
  type CertificatePair,
} from '@tandem/serving';
import {
  REPO_ROOT,
  startApp,
  type AppBinary,
  type AppProcess,
} from './app-process.ts';
import { httpStatusOf, type KubeClients } from './kube.ts';
import { apiServerGet } from './raw-get.ts';
import { waitFor } from './wait.ts';

const ADAPTER: AppBinary = {
  project: 'metrics-adapter',
  bin: join(
    REPO_ROOT,
    'apps',
    'metrics-adapter',
    'bin',
    'tandem-metrics-adapter.mjs',
  ),
  distMain: join(REPO_ROOT, 'apps', 'metrics-adapter', 'dist', 'main.js'),
};

/** The API versions the adapter serves, each its own APIService (v1beta2 preferred). */
const API_SERVICES = [
  { version: 'v1beta2', versionPriority: 200 },
  { version: 'v1beta1', versionPriority: 100 },
] as const;
export const CUSTOM_METRICS_GROUP = 'custom.metrics.k8s.io';

/**
 * The aggregator reaches a Service, so a host process gets an ExternalName Service for
 * 127.0.0.1 in `default`, and a serving certificate for that Service's DNS name.
 */
const SERVICE = { namespace: 'default', name: 'tandem-metrics-adapter-e2e' };

/** The Service (namespace and name) an APIService routes to. */
export interface ApiServiceTarget {
  namespace: string;
  name: string;
}

export interface MetricsAdapter {
  process: AppProcess;
  /** `https://127.0.0.1:<port>/`, for requests that bypass the aggregator. */
  url: string;
  ca: CertificatePair;
  /** Deletes the APIServices and the Service, and stops the process. */
  stop(): Promise<void>;
}

/**
 * Starts the metrics adapter as a host process and registers it as
 * `custom.metrics.k8s.io` through APIServices with its CA bundle, as a cluster would through
 * deploy/metrics-adapter; resolves once both APIServices are Available.
 */
export async function startMetricsAdapter(
  kube: KubeClients,
  kubeconfig: string,
  extraArgs: string[] = [],
  {
    env,
    takeOver = false,
  }: {
    env?: Record<string, string>;
    /**
     * Patch the APIServices in place to route to this adapter, as `kubectl apply` over
     * another provider's does, instead of deleting and creating them: the group never
     * disappears, so HPAs on the previous provider's metrics keep reading.
     */
    takeOver?: boolean;
  } = {},
): Promise<MetricsAdapter> {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-adapter-certs-'));
  const ca = createCertificateAuthority({
    commonName: 'tandem-e2e-adapter-ca',
  });
  const serving = issueServingCertificate(ca, {
    dnsNames: [`${SERVICE.name}.${SERVICE.namespace}.svc`, 'localhost'],
    ipAddresses: ['127.0.0.1'],
  });
  const files = await writeCertificateFiles(dir, { ca, serving });
  const process = await startApp({
    app: ADAPTER,
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--tls-cert-file=${files.certFile}`,
      `--tls-private-key-file=${files.keyFile}`,
      '--bind-address=127.0.0.1',
      '--secure-port=0',
      '--address=127.0.0.1:0',
      '--metrics-cache-ttl=5s',
      ...extraArgs,
    ],
    env,
    readyMessage: 'custom metrics API listening',
  });
  const port = Number(new URL(process.url).port);
  await (takeOver ? takeOverApiServices : registerApiServices)(
    kube,
    port,
    ca.certPem,
  );
  const adapter: MetricsAdapter = {
    process,
    url: `https://127.0.0.1:${port}/`,
    ca,
    async stop() {
      await unregisterApiServices(kube);
      await process.stop();
    },
  };
  try {
    await waitForAvailable(kube, () => process.tail(20));
  } catch (error) {
    await adapter.stop();
    throw error;
  }
  return adapter;
}

/** Creates the APIServices (after deleting any) for a host process behind `service`. */
export async function registerApiServices(
  kube: KubeClients,
  port: number,
  caPem: string,
  service: ApiServiceTarget = SERVICE,
): Promise<void> {
  await unregisterApiServices(kube, service);
  for (const { version, versionPriority } of API_SERVICES)
    await kube.apiRegistration.createAPIService({
      body: {
        metadata: { name: `${version}.${CUSTOM_METRICS_GROUP}` },
        spec: {
          group: CUSTOM_METRICS_GROUP,
          version,
          groupPriorityMinimum: 100,
          versionPriority,
          caBundle: Buffer.from(caPem).toString('base64'),
          service: { ...service, port },
        },
      },
    });
  // After the APIServices: the availability check reruns when the Service appears (see
  // the aggregated-api suite), not when an APIService meets an existing Service.
  await createHostService(kube, service);
}

/** An ExternalName Service for 127.0.0.1: how the aggregator reaches a host process. */
async function createHostService(
  kube: KubeClients,
  service: ApiServiceTarget,
): Promise<void> {
  await kube.core.createNamespacedService({
    namespace: service.namespace,
    body: {
      metadata: { name: service.name },
      spec: { type: 'ExternalName', externalName: '127.0.0.1' },
    },
  });
}

/**
 * Routes the existing APIServices to `service` with one patch each (Service and caBundle
 * together), the Service created first so the aggregator's availability check passes at
 * once: what `kubectl apply -k` over another provider's APIServices does.
 */
export async function takeOverApiServices(
  kube: KubeClients,
  port: number,
  caPem: string,
  service: ApiServiceTarget = SERVICE,
): Promise<void> {
  await kube.core.deleteNamespacedService({ ...service }).catch(ignoreMissing);
  await createHostService(kube, service);
  for (const { version } of API_SERVICES)
    await kube.apiRegistration.patchAPIService({
      name: `${version}.${CUSTOM_METRICS_GROUP}`,
      body: [
        { op: 'replace', path: '/spec/service', value: { ...service, port } },
        {
          op: 'replace',
          path: '/spec/caBundle',
          value: Buffer.from(caPem).toString('base64'),
        },
      ],
    });
}

const ignoreMissing = (error: unknown) => {
  if (httpStatusOf(error) !== 404) throw error;
};

/** Deletes the group's APIServices and `service`. */
export async function unregisterApiServices(
  kube: KubeClients,
  service: ApiServiceTarget = SERVICE,
): Promise<void> {
  for (const { version } of API_SERVICES)
    await kube.apiRegistration
      .deleteAPIService({ name: `${version}.${CUSTOM_METRICS_GROUP}` })
      .catch(ignoreMissing);
  await kube.core.deleteNamespacedService({ ...service }).catch(ignoreMissing);
}

/** Resolves once both APIServices of the group are Available; `tail` explains a timeout. */
export async function waitForAvailable(
  kube: KubeClients,
  tail: () => string,
): Promise<void> {
  for (const { version } of API_SERVICES) {
    const name = `${version}.${CUSTOM_METRICS_GROUP}`;
    await waitFor(
      `APIService ${name} to become Available`,
      async () => {
        const conditions = (await kube.apiRegistration.readAPIService({ name }))
          .status?.conditions;
        return conditions?.find(
          (condition) =>
            condition.type === 'Available' && condition.status === 'True',
        );
      },
      { timeoutMs: 60_000 },
      async () =>
        `${JSON.stringify(
          (await kube.apiRegistration.readAPIService({ name })).status
            ?.conditions,
        )}; adapter output tail:\n${tail()}`,
    );
    // Available is the availability controller's verdict; the aggregator's proxy for the
    // group-version is updated apart from it and answered 503 a moment longer in one CI
    // run. Wait for the proxy itself to answer, as the HPA controller will read.
    const path = `/apis/${CUSTOM_METRICS_GROUP}/${version}`;
    let last = 'no answer yet';
    await waitFor(
      `the API server to serve ${path} from the provider`,
      async () => {
        const answer = await apiServerGet(kube.config, path);
        last = `HTTP ${answer.status}`;
        return answer.status === 200 ? true : undefined;
      },
      { timeoutMs: 60_000 },
      () => Promise.resolve(`${last}; adapter output tail:\n${tail()}`),
    );
  }
}
