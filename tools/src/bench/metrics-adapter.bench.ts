import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
} from '@kubernetes/client-node';
import { startControlPlane } from './control-plane.js';
import { fixedRateLoad, type LoadRequest } from './fixed-rate-load.js';
import { closedLoopRuns, fixedRateRuns } from './load-runs.js';
import { mediansOfRuns } from './measure.js';
import { requireEnv } from './recommender-startup.bench.js';
import type { Figure } from './report.js';
import {
  getText,
  loopbackCertificates,
  startServedApp,
  stopServedApp,
} from './served-app.js';

const NAMESPACE = 'bench-metrics-adapter';
const APP = 'web';
const PODS = 1000;
const METRIC = 'cpu_utilization_of_original_request';
/** Fake nodes, and pods each may hold: start.sh's default of 110 per node is too few. */
const NODES = 3;
const PODS_PER_NODE = 400;
/** Each answer is ~300 KB of JSON: rates a 2-core machine sustains next to the cluster. */
const RATES = [20, 50];
const TARGET_RATE = 20;
/**
 * Each figure is the median of RUNS runs of RUN_MS with their spread (the CPU per answer
 * and the latencies at the target rate, of CPU_RUNS).
 */
const RUNS = 3;
const RUN_MS = 6_000;
const WARM_UP_MS = 2_000;
const CONNECTIONS = 8;
/** Issue 25's budget: the adapter's CPU (user + system) for one 1,000-pod answer. */
const CPU_PER_ANSWER_TARGET_MS = 2;
const CPU_RUNS = 5;
const CLOSED_LOOP_CONNECTIONS = 4;
/** Longer than the whole run, so every measured request is served from the usage cache. */
const CACHE_TTL = '10m';
const SEED_TIMEOUT_MS = 300_000;
const MIB = 2 ** 20;
const CPU_SECONDS = 'process_cpu_seconds_total';

/**
 * The metrics adapter answering `pods/*` for a namespace of 1,000 Running and Ready pods, as
 * the HPA controller asks through the aggregator: the real binary serving HTTPS, its pod
 * and ReplicaSet caches synced from the local control plane, usage read once from
 * metrics-server and then cached (warm). The load authenticates as the aggregator does, with
 * the control plane's front-proxy client certificate and `X-Remote-*` headers in
 * `system:masters` (allowed without a SubjectAccessReview), so the figures are the adapter's
 * own cost. p50 and p99 at fixed rates (target p99 ≤ 20 ms at 20 requests/s), the CPU per
 * answer at 20 requests/s (target ≤ 2 ms, issue 25), the highest sustained rate with a few
 * connections, each the median of a few runs with their spread, and the adapter's heap
 * afterwards.
 *
 * `TANDEM_BENCH_ADAPTER_CPU_PROF=<dir>` runs the adapter with `--cpu-prof` into that
 * directory (the profile is written when it exits).
 */
export async function metricsAdapterFigures(root: string): Promise<Figure[]> {
  const bin = join(
    root,
    'apps',
    'metrics-adapter',
    'bin',
    'tandem-metrics-adapter.mjs',
  );
  if (!existsSync(join(root, 'apps', 'metrics-adapter', 'dist', 'main.js')))
    throw new Error(
      'the metrics adapter is not built: run npx nx run metrics-adapter:build',
    );
  const cluster = await startControlPlane(root, {
    TANDEM_CP_NODES: String(NODES),
    TANDEM_CP_NODE_PODS: String(PODS_PER_NODE),
  });
  if ('skipped' in cluster) {
    process.stderr.write(
      `skipping the metrics adapter benchmark (local control plane): ${cluster.skipped}\n`,
    );
    return [];
  }
  let adapter: ChildProcess | undefined;
  const certDir = mkdtempSync(join(tmpdir(), 'tandem-bench-adapter-'));
  try {
    const kubeconfig = requireEnv(cluster, 'KUBECONFIG');
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfig);
    await seed(kubeConfig);
    await waitForPodMetrics(kubeConfig);

    const { ca, files } = await loopbackCertificates(certDir);
    const profileDir = process.env.TANDEM_BENCH_ADAPTER_CPU_PROF;
    const started = await startServedApp({
      what: 'metrics adapter',
      nodeArgs: profileDir
        ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]
        : [],
      bin,
      args: [
        `--kubeconfig=${kubeconfig}`,
        `--tls-cert-file=${files.certFile}`,
        `--tls-private-key-file=${files.keyFile}`,
        '--bind-address=127.0.0.1',
        '--secure-port=0',
        '--address=127.0.0.1:0',
        `--metrics-cache-ttl=${CACHE_TTL}`,
      ],
      serverMessage: 'custom metrics API listening',
    });
    adapter = started.process;

    // What kube-apiserver's aggregator presents (start.sh issues it for the same purpose).
    const pki = join(requireEnv(cluster, 'TANDEM_CP_STATE_DIR'), 'pki');
    const load: LoadRequest = {
      url: `${started.serverUrl}/apis/custom.metrics.k8s.io/v1beta2/namespaces/${NAMESPACE}/pods/*/${METRIC}?labelSelector=${encodeURIComponent(`app=${APP}`)}`,
      method: 'GET',
      headers: {
        accept: 'application/json',
        'X-Remote-User': 'bench',
        'X-Remote-Group': 'system:masters',
      },
      ca: ca.certPem,
      cert: readFileSync(join(pki, 'front-proxy-client.crt'), 'utf8'),
      key: readFileSync(join(pki, 'front-proxy-client.key'), 'utf8'),
      connections: CONNECTIONS,
    };
    await sanityCheck(load);
    await fixedRateLoad({ ...load, rate: 10, durationMs: WARM_UP_MS });

    const what = `metrics adapter, pods/* of ${PODS.toLocaleString('en-US')} pods (warm cache)`;
    const adapterCpuMs = async () =>
      (await scrapeValue(started.opsUrl, CPU_SECONDS)) * 1000;
    // What the adapter spends with no request at all (watch events, timers): the share of
    // the CPU per answer below that is not the answers'.
    const { rest } = await mediansOfRuns(RUNS, async () => {
      const before = await adapterCpuMs();
      await sleep(RUN_MS);
      return { rest: ((await adapterCpuMs()) - before) / (RUN_MS / 1000) };
    });
    const figures: Figure[] = [
      {
        name: `metrics adapter CPU at rest beside ${PODS.toLocaleString('en-US')} pods, no requests`,
        ...rest,
        unit: 'ms/s',
        target: undefined,
      },
    ];
    for (const rate of RATES) {
      const runs = await fixedRateRuns(
        { ...load, rate },
        {
          runs: rate === TARGET_RATE ? CPU_RUNS : RUNS,
          runMs: RUN_MS,
          what: 'metrics adapter',
          serverCpuMs: adapterCpuMs,
        },
      );
      figures.push(
        {
          name: `${what} at ${rate} req/s, p50`,
          ...runs.p50,
          unit: 'ms',
          target: undefined,
        },
        {
          name: `${what} at ${rate} req/s, p99`,
          ...runs.p99,
          unit: 'ms',
          target:
            rate === TARGET_RATE ? { comparison: '<=', value: 20 } : undefined,
        },
      );
      if (rate === TARGET_RATE)
        figures.push({
          // The adapter's CPU (user + system) per answer at the target rate, the share of
          // its CPU at rest included: what the latency is made of when nothing else competes.
          name: `${what}, adapter CPU per answer at ${TARGET_RATE} req/s`,
          ...runs.cpu,
          unit: 'ms',
          target: { comparison: '<=', value: CPU_PER_ANSWER_TARGET_MS },
        });
    }
    const closed = await closedLoopRuns(
      { ...load, connections: CLOSED_LOOP_CONNECTIONS },
      { runs: RUNS, runMs: RUN_MS, what: 'metrics adapter' },
    );
    figures.push(
      {
        name: `${what}, sustained (closed loop, ${CLOSED_LOOP_CONNECTIONS} connections)`,
        ...closed,
        unit: 'req/s',
        target: undefined,
      },
      {
        name: 'metrics adapter heap used after the load',
        value:
          (await scrapeValue(started.opsUrl, 'nodejs_heap_size_used_bytes')) /
          MIB,
        unit: 'MiB',
        target: undefined,
      },
    );
    return figures;
  } finally {
    if (adapter !== undefined) await stopServedApp(adapter);
    rmSync(certDir, { recursive: true, force: true });
    await cluster.stop();
  }
}

/** A namespace with one Deployment of PODS pods on the fake nodes, all Running and Ready. */
async function seed(kubeConfig: KubeConfig): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  // ServiceAccount admission rejects pods until the namespace's default account exists,
  // and the ReplicaSet controller would back off on those rejections.
  await waitUntil(
    `the default ServiceAccount of ${NAMESPACE}`,
    30_000,
    async () =>
      core
        .readNamespacedServiceAccount({ namespace: NAMESPACE, name: 'default' })
        .then(
          () => true,
          () => false,
        ),
  );
  const labels = { app: APP };
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  await apps.createNamespacedDeployment({
    namespace: NAMESPACE,
    body: {
      metadata: { name: APP },
      spec: {
        replicas: PODS,
        selector: { matchLabels: labels },
        template: {
          metadata: {
            labels,
            annotations: {
              'kwok.x-k8s.io/usage-cpu': '5m',
              'kwok.x-k8s.io/usage-memory': '8Mi',
            },
          },
          spec: {
            nodeSelector: { type: 'kwok' },
            terminationGracePeriodSeconds: 0,
            containers: [
              {
                name: 'app',
                image: 'registry.invalid/bench:1',
                resources: {
                  requests: { cpu: '10m', memory: '16Mi' },
                  limits: { cpu: '20m', memory: '32Mi' },
                },
              },
            ],
          },
        },
      },
    },
  });
  let status = '';
  await waitUntil(
    `${PODS} pods of Deployment ${NAMESPACE}/${APP} Ready`,
    SEED_TIMEOUT_MS,
    async () => {
      const deployment = await apps.readNamespacedDeployment({
        namespace: NAMESPACE,
        name: APP,
      });
      status = JSON.stringify(deployment.status);
      return deployment.status?.readyReplicas === PODS;
    },
    () => `last status: ${status}`,
  );
}

/**
 * Until metrics.k8s.io has every pod: the adapter caches a namespace's usage for the whole
 * run, so a partial first read would stay partial (metrics-server needs two scrapes of a pod).
 */
async function waitForPodMetrics(kubeConfig: KubeConfig): Promise<void> {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  let count = 0;
  await waitUntil(
    `metrics.k8s.io to report ${PODS} pods in ${NAMESPACE}`,
    SEED_TIMEOUT_MS,
    async () => {
      const list = (await custom.listNamespacedCustomObject({
        group: 'metrics.k8s.io',
        version: 'v1beta1',
        namespace: NAMESPACE,
        plural: 'pods',
      })) as { items?: { containers?: unknown[] }[] };
      count = (list.items ?? []).filter(
        (item) => (item.containers ?? []).length > 0,
      ).length;
      return count >= PODS;
    },
    () => `last count: ${count}`,
  );
}

async function waitUntil(
  what: string,
  timeoutMs: number,
  check: () => Promise<boolean>,
  detail: () => string = () => '',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs / 1000}s waiting for ${what}; ${detail()}`,
      );
    await sleep(1000);
  }
}

/** One request before any timing: a 200 with exactly one value per pod, or the body says why not. */
async function sanityCheck(load: LoadRequest): Promise<void> {
  const { status, body } = await new Promise<{ status: number; body: string }>(
    (resolve, reject) => {
      const outgoing = httpsRequest(
        load.url,
        {
          method: 'GET',
          headers: load.headers,
          ca: load.ca,
          cert: load.cert,
          key: load.key,
          agent: false,
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: text }),
          );
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    },
  );
  let items: number | undefined;
  try {
    items = (JSON.parse(body) as { items?: unknown[] }).items?.length;
  } catch {
    items = undefined;
  }
  if (status !== 200 || items !== PODS)
    throw new Error(
      `expected 200 with ${PODS} items from ${load.url}, got ${status} with ${items ?? 'no'} items: ${body.slice(0, 1000)}`,
    );
}

/** One sample of the adapter's own /metrics on its ops server. */
export async function scrapeValue(
  opsUrl: string,
  name: string,
): Promise<number> {
  const text = await getText(`${opsUrl}/metrics`);
  const match = new RegExp(`^${name} (\\S+)`, 'm').exec(text);
  if (match?.[1] === undefined)
    throw new Error(`no ${name} in the metrics adapter's /metrics`);
  return Number(match[1]);
}
