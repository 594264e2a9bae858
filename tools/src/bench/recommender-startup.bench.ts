import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  Watch,
} from '@kubernetes/client-node';
import { drainQueue } from '@tandem/recommender-core';
import { type VerticalPodAutoscaler, VPA_API_GROUP } from '@tandem/vpa-api';
import { type ControlPlane, startControlPlane } from './control-plane.js';
import { medianOfRuns } from './measure.js';
import { mapMeasured, type Figure } from './report.js';
import { restoredWorkloads } from './startup-objects.js';
import { seededRandom } from '@tandem/estimators';

const VPAS = 1_000;
const NAMESPACE = 'bench-startup';
const INTERVAL_S = 5;
const RUNS = 3;
const IN_FLIGHT = 20;
const TIMEOUT_MS = 180_000;
/**
 * Gardener's setting for large clusters (gardener/gardener#11748): at upstream's default of
 * 50 requests/s, 1,000 status writes alone would take 20 s, as they would upstream.
 */
const KUBE_API_QPS = 200;
const KUBE_API_BURST = 250;
const VPA_API = {
  group: VPA_API_GROUP,
  version: 'v1',
  namespace: NAMESPACE,
};

/**
 * A recommender restarted on a cluster holding 1,000 VPAs and their checkpoints, against
 * the local control plane: wall time from spawning `tandem-recommender` until every VPA's
 * status holds a recommendation. The Deployments have no pods, so the recommendations
 * come from the restored checkpoints alone. The first cycle runs as soon as the leadership
 * term has loaded the checkpoints.
 */
export async function recommenderStartupFigures(
  root: string,
): Promise<Figure[]> {
  const cluster = await startControlPlane(root);
  if ('skipped' in cluster) {
    process.stderr.write(
      `skipping the recommender start-up benchmark (local control plane): ${cluster.skipped}\n`,
    );
    return [];
  }
  try {
    return await measureStartup(root, cluster);
  } finally {
    await cluster.stop();
  }
}

async function measureStartup(
  root: string,
  cluster: ControlPlane,
): Promise<Figure[]> {
  const kubeconfig = requireEnv(cluster, 'KUBECONFIG');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  await installCrds(root, requireEnv(cluster, 'TANDEM_CP_KUBECTL'), kubeconfig);
  await seed(kubeConfig);

  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  // Outside the cluster's state dir, which stop.sh removes: a failure message names the log.
  const logDir = mkdtempSync(join(tmpdir(), 'tandem-bench-recommender-'));
  let run = 0;
  const wallMs = await medianOfRuns(RUNS, async () => {
    run += 1;
    await clearStatuses(custom);
    return timeToRecommendations(
      kubeConfig,
      kubeconfig,
      join(root, 'apps', 'recommender', 'bin', 'tandem-recommender.mjs'),
      join(logDir, `recommender-${run}.log`),
    );
  });
  const what = `${VPAS.toLocaleString('en-US')} VPAs restored from checkpoints`;
  return [
    {
      name: `recommender start to ${what} recommended, wall (--kube-api-qps=${KUBE_API_QPS})`,
      ...mapMeasured(wallMs, (ms) => ms / 1000),
      unit: 's',
      target: { comparison: '<=', value: 10 },
    },
  ];
}

export function requireEnv(cluster: ControlPlane, key: string): string {
  const value = cluster.env[key];
  if (value === undefined)
    throw new Error(`the control plane's env file has no ${key}`);
  return value;
}

export async function installCrds(
  root: string,
  kubectl: string,
  kubeconfig: string,
): Promise<void> {
  const run = promisify(execFile);
  const args = [`--kubeconfig=${kubeconfig}`];
  await run(kubectl, [...args, 'apply', '-f', join(root, 'deploy', 'crds')]);
  // kubectl 1.34's wait fails at once ("status.conditions accessor error") on a CRD whose
  // status the API server has not written yet, instead of waiting: ask again until it has.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await run(kubectl, [
        ...args,
        'wait',
        '--for=condition=Established',
        '--timeout=60s',
        'crd/verticalpodautoscalers.autoscaling.k8s.io',
        'crd/verticalpodautoscalercheckpoints.autoscaling.k8s.io',
      ]);
      return;
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '');
      if (attempt === 20 || !stderr.includes('status.conditions accessor'))
        throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Creates the namespace and, per workload, its Deployment, VPA and checkpoint. */
async function seed(kubeConfig: KubeConfig): Promise<void> {
  const workloads = restoredWorkloads(
    NAMESPACE,
    VPAS,
    Date.now(),
    seededRandom(4),
  );
  await kubeConfig
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: NAMESPACE } } });
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  await drainQueue(workloads, IN_FLIGHT, async (workload) => {
    await apps.createNamespacedDeployment({
      namespace: NAMESPACE,
      body: workload.deployment,
    });
    await custom.createNamespacedCustomObject({
      ...VPA_API,
      plural: 'verticalpodautoscalers',
      body: workload.vpa,
    });
    await custom.createNamespacedCustomObject({
      ...VPA_API,
      plural: 'verticalpodautoscalercheckpoints',
      body: workload.checkpoint,
    });
  });
}

/** Empties every VPA's status, so the next run starts from VPAs without recommendations. */
async function clearStatuses(custom: CustomObjectsApi): Promise<void> {
  const vpas = await listVpas(custom);
  await drainQueue(
    vpas.filter((vpa) => vpa.status !== undefined),
    IN_FLIGHT,
    async (vpa) => {
      await custom.patchNamespacedCustomObjectStatus({
        ...VPA_API,
        plural: 'verticalpodautoscalers',
        name: vpa.metadata?.name ?? '',
        body: [{ op: 'remove', path: '/status' }],
      });
    },
  );
}

/**
 * Spawns the recommender and resolves with the wall time until a watch on the VPAs has seen
 * every one with a recommendation (a watch, not polling: listing 1,000 VPAs a few times a
 * second would load the API server the recommender is writing to).
 */
async function timeToRecommendations(
  kubeConfig: KubeConfig,
  kubeconfigPath: string,
  bin: string,
  logFile: string,
): Promise<number> {
  const recommended = new Set<string>();
  // Settled once: by the watch seeing the last VPA, or by the first failure.
  let succeed!: () => void;
  let fail!: (error: Error) => void;
  const everyVpaRecommended = new Promise<void>((resolve, reject) => {
    succeed = resolve;
    fail = reject;
  });
  const watch = await new Watch(kubeConfig).watch(
    `/apis/${VPA_API.group}/${VPA_API.version}/namespaces/${NAMESPACE}/verticalpodautoscalers`,
    {},
    (_phase, vpa: VerticalPodAutoscaler) => {
      if (holdsRecommendation(vpa)) recommended.add(vpa.metadata?.name ?? '');
      if (recommended.size === VPAS) succeed();
    },
    (error: unknown) =>
      fail(new Error(`the VPA watch ended: ${String(error)}`)),
  );
  const log = openSync(logFile, 'w');
  const start = performance.now();
  const recommender = spawn(
    process.execPath,
    [
      bin,
      `--kubeconfig=${kubeconfigPath}`,
      `--recommender-interval=${INTERVAL_S}s`,
      '--address=127.0.0.1:0',
      `--kube-api-qps=${KUBE_API_QPS}`,
      `--kube-api-burst=${KUBE_API_BURST}`,
    ],
    { stdio: ['ignore', log, log] },
  );
  const exited = new Promise<void>((resolve) =>
    recommender.once('exit', (code) => {
      fail(
        new Error(`the recommender exited with ${code}; its log: ${logFile}`),
      );
      resolve();
    }),
  );
  const timeout = setTimeout(
    () =>
      fail(
        new Error(
          `${recommended.size} of ${VPAS} VPAs recommended after ${TIMEOUT_MS / 1000} s; the recommender's log: ${logFile}`,
        ),
      ),
    TIMEOUT_MS,
  );
  try {
    await everyVpaRecommended;
    return performance.now() - start;
  } finally {
    clearTimeout(timeout);
    watch.abort();
    recommender.kill('SIGTERM');
    await exited;
    closeSync(log);
  }
}

function holdsRecommendation(vpa: VerticalPodAutoscaler): boolean {
  return (
    (vpa.status?.recommendation?.containerRecommendations?.length ?? 0) > 0
  );
}

async function listVpas(
  custom: CustomObjectsApi,
): Promise<VerticalPodAutoscaler[]> {
  const list = (await custom.listNamespacedCustomObject({
    ...VPA_API,
    plural: 'verticalpodautoscalers',
  })) as { items: VerticalPodAutoscaler[] };
  return list.items;
}
