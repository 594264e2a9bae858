import { setTimeout as sleep } from 'node:timers/promises';
import {
  type V1Container,
  type V2HorizontalPodAutoscaler,
  type V2HorizontalPodAutoscalerCondition,
  type V2MetricSpec,
} from '@kubernetes/client-node';
import { parseCpuMillicores } from '@tandem/vpa-api';
import type { MetricsAdapter } from '../harness/adapter-process.ts';
import { stopAllApps } from '../harness/app-process.ts';
import { isLocalCluster } from '../harness/cluster-env.ts';
import { httpStatusOf } from '../harness/kube.ts';
import { startLoadDriver, type LoadDriver } from '../harness/load-driver.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { grantMetricRead } from '../harness/metric-grant.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  apiServerGet,
  describeResponse,
  httpsGet,
  tokenKubeConfig,
  type RawResponse,
} from '../harness/raw-get.ts';
import {
  platformApps,
  platformAppsAvailable,
  type RunningApp,
} from '../harness/platform-apps.ts';
import { waitFor } from '../harness/wait.ts';
import { vpaObjects } from '../harness/vpa-objects.ts';
import {
  createDeploymentOfPods,
  listPods,
  ON_FAKE_NODES,
} from '../harness/workloads.ts';

// The adapter, webhook, recommender and updater run as host processes beside the local
// control plane, or as installed by deploy/ on kind (platform-apps.ts); the HPAs are the
// real kube-controller-manager's (5 s sync period on both clusters).
const describeOnPlatform = platformAppsAvailable() ? describe : describe.skip;
// Requests straight to the adapter's port, and moving metrics.k8s.io's APIService aside,
// need the adapter as a host process and the local control plane's metrics-server.
const itLocal = isLocalCluster() ? it : it.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('adapter');
const vpas = vpaObjects(kube, () => currentNamespace());
const drivers: LoadDriver[] = [];
/** Deployments (and their HPAs, same names) of the running test, deleted after it. */
const workloads: string[] = [];
/** The suite's adapter; each test's webhook, recommender and updater (stopped after it). */
const suiteApps = platformApps(kube);
const testApps = platformApps(kube);
let adapter: RunningApp & { hostProcess?: MetricsAdapter };

/** The control plane's HPA controller syncs every 5 s (e2e/control-plane/start.sh). */
const HPA_SYNC_MS = 5_000;
const METRICS_API_SERVICE = 'v1beta1.metrics.k8s.io';
/** A port nothing listens on: the aggregator then answers 503 for metrics.k8s.io. */
const CLOSED_PORT = 1;
let metricsServicePort: number | undefined;

const container = (
  name: string,
  resources: V1Container['resources'],
): V1Container => ({ name, image: 'registry.invalid/tandem-e2e:1', resources });

async function createWorkload(
  name: string,
  replicas: number,
  containers: V1Container[],
): Promise<void> {
  workloads.push(name);
  await createDeploymentOfPods(kube, currentNamespace(), name, replicas, {
    ...ON_FAKE_NODES,
    containers,
  });
}

async function createHpa(
  name: string,
  metric: V2MetricSpec,
  { minReplicas = 1, maxReplicas = 12 } = {},
): Promise<void> {
  await kube.autoscaling.createNamespacedHorizontalPodAutoscaler({
    namespace: currentNamespace(),
    body: {
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        minReplicas,
        maxReplicas,
        metrics: [metric],
      },
    },
  });
}

const tandemMetric = (
  name: string,
  averageValue: string,
  container?: string,
): V2MetricSpec => ({
  type: 'Pods',
  pods: {
    metric: {
      name,
      ...(container && { selector: { matchLabels: { container } } }),
    },
    target: { type: 'AverageValue', averageValue },
  },
});

const nativeCpu = (averageUtilization: number): V2MetricSpec => ({
  type: 'Resource',
  resource: {
    name: 'cpu',
    target: { type: 'Utilization', averageUtilization },
  },
});

async function readHpa(name: string): Promise<V2HorizontalPodAutoscaler> {
  return kube.autoscaling.readNamespacedHorizontalPodAutoscaler({
    namespace: currentNamespace(),
    name,
  });
}

async function describeHpa(name: string): Promise<string> {
  const hpa = await readHpa(name);
  const metric = hpa.status?.currentMetrics?.[0];
  const value =
    metric?.resource?.current.averageUtilization ??
    metric?.pods?.current.averageValue ??
    metric?.object?.current.value;
  const conditions = (hpa.status?.conditions ?? [])
    .map((c) => `${c.type}=${c.status}(${c.reason}: ${c.message})`)
    .join(' ');
  return `${name}: replicas ${hpa.status?.currentReplicas}→${hpa.status?.desiredReplicas}, metric ${value}; ${conditions}`;
}

async function hpaCondition(
  name: string,
  type: string,
): Promise<V2HorizontalPodAutoscalerCondition | undefined> {
  return (await readHpa(name)).status?.conditions?.find(
    (condition) => condition.type === type,
  );
}

async function replicasOf(name: string): Promise<number> {
  const deployment = await kube.apps.readNamespacedDeployment({
    namespace: currentNamespace(),
    name,
  });
  return deployment.spec?.replicas ?? 0;
}

function waitForReplicas(
  name: string,
  accept: (replicas: number) => boolean,
  description: string,
  timeoutMs = 180_000,
): Promise<number> {
  return waitFor(
    `${name} to reach ${description}`,
    async () => {
      const replicas = await replicasOf(name);
      return accept(replicas) ? replicas : undefined;
    },
    { timeoutMs, intervalMs: 1000 },
    async () =>
      `${await describeHpa(name)}; adapter output tail:\n${await adapter.tail(10)}`,
  );
}

/**
 * Reads a Deployment's replicas every second until stopped: what its HPA did over a window.
 * (Sampling, not synchronization: a scale-up would last at least the 15 s downscale
 * stabilization, far longer than a sample period.)
 */
function sampleReplicas(name: string): { stop(): Promise<number[]> } {
  const seen: number[] = [];
  let running = true;
  let failure: unknown;
  const loop = (async () => {
    while (running) {
      try {
        seen.push(await replicasOf(name));
      } catch (error) {
        failure = error;
        return;
      }
      await sleep(1000);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (failure !== undefined) throw failure;
      return seen;
    },
  };
}

async function drive(
  name: string,
  cpuMillicores: number,
  shares?: Record<string, number>,
) {
  const driver = await startLoadDriver(
    kube,
    currentNamespace(),
    `app=${name}`,
    {
      cpuMillicores,
      ...(shares && { containerShares: shares }),
    },
  );
  drivers.push(driver);
  return driver;
}

async function readMetricsServicePort(): Promise<number | undefined> {
  return (
    await kube.apiRegistration.readAPIService({ name: METRICS_API_SERVICE })
  ).spec?.service?.port;
}

async function setMetricsServicePort(port: number): Promise<void> {
  await kube.apiRegistration.patchAPIService({
    name: METRICS_API_SERVICE,
    body: [{ op: 'replace', path: '/spec/service/port', value: port }],
  });
}

/** Later tests and suites need the metrics API: wait until it serves again. */
async function waitForMetricsApiAvailable(): Promise<void> {
  const conditions = async () =>
    (await kube.apiRegistration.readAPIService({ name: METRICS_API_SERVICE }))
      .status?.conditions ?? [];
  await waitFor(
    `APIService ${METRICS_API_SERVICE} Available again`,
    async () =>
      (await conditions()).some(
        (c) => c.type === 'Available' && c.status === 'True',
      ) || undefined,
    { timeoutMs: 60_000 },
    async () => JSON.stringify(await conditions()),
  );
}

/** The path of one metric of every pod of the test namespace (v1beta2). */
const podsMetricPath = (metric: string) =>
  `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${currentNamespace()}/pods/*/${metric}`;

/** A GET straight to the adapter, bypassing the aggregator, with its serving CA trusted. */
function adapterGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const direct = adapter.hostProcess;
  if (direct === undefined)
    throw new Error('a direct GET needs the adapter as a host process');
  return httpsGet(new URL(path, direct.url), {
    ca: direct.ca.certPem,
    headers,
  });
}

/** Polls a GET until its status is `expected`; a timeout shows the last answer and the adapter's log. */
async function waitForStatus(
  description: string,
  get: () => Promise<RawResponse>,
  expected: number,
  timeoutMs = 60_000,
): Promise<RawResponse> {
  let last: RawResponse | undefined;
  return waitFor(
    description,
    async () => {
      last = await get();
      return last.status === expected ? last : undefined;
    },
    { timeoutMs, intervalMs: 500 },
    async () =>
      `${last === undefined ? 'no answer' : describeResponse(last)}; adapter output tail:\n${await adapter.tail(10)}`,
  );
}

describeOnPlatform('the metrics adapter under the real HPA controller', () => {
  beforeAll(async () => {
    await installTandemCrds(kube);
    adapter = await suiteApps.metricsAdapter();
  });

  afterEach(async () => {
    await Promise.all(drivers.splice(0).map((driver) => driver.stop()));
    await testApps.stopAll();
    const ignoreMissing = (error: unknown) => {
      if (httpStatusOf(error) !== 404) throw error;
    };
    for (const name of workloads.splice(0)) {
      await kube.autoscaling
        .deleteNamespacedHorizontalPodAutoscaler({
          namespace: currentNamespace(),
          name,
        })
        .catch(ignoreMissing);
      await kube.apps
        .deleteNamespacedDeployment({ namespace: currentNamespace(), name })
        .catch(ignoreMissing);
    }
  });

  afterAll(async () => {
    // Should the metrics-source test have stopped before its own restore.
    if (
      metricsServicePort !== undefined &&
      (await readMetricsServicePort()) !== metricsServicePort
    ) {
      await setMetricsServicePort(metricsServicePort);
      await waitForMetricsApiAvailable();
    }
    await suiteApps.stopAll();
    await stopAllApps();
  });

  it('keeps the HPA honest after the VPA lowers requests, where the native HPA over-scales (headline)', async () => {
    await testApps.webhook();
    // 500m requested, 1000m of load in total, a 50 % target: the load calls for 4 replicas.
    const LOAD_CALLS_FOR = 4;
    const resources = {
      requests: { cpu: '500m', memory: '128Mi' },
      limits: { cpu: '1', memory: '256Mi' },
    };
    for (const name of ['native', 'tandem']) {
      await createWorkload(name, LOAD_CALLS_FOR, [container('app', resources)]);
      await vpas.createVpa(name, name, {
        updatePolicy: { updateMode: 'Recreate' },
      });
      await drive(name, 1000);
    }
    await createHpa('native', nativeCpu(50));
    await createHpa(
      'tandem',
      tandemMetric('cpu_utilization_of_original_request', '50'),
    );

    // The recommender watches both workloads and lowers their CPU target below 500m.
    const recommender = await testApps.recommender(5);
    for (const name of ['native', 'tandem'])
      await vpas.waitForRecommendation(
        name,
        'a CPU target well below the 500m request',
        {
          accept: (recommendation) =>
            parseCpuMillicores(recommendation.target?.cpu ?? '1') < 400,
          timeoutMs: 180_000,
          context: async () =>
            `recommender output tail:\n${await recommender.tail(10)}`,
        },
      );

    // The updater now evicts the pods, half a workload at a time, and the webhook gives
    // their replacements the recommended requests. The requests are within the recommended
    // range, so upstream's 12 h wait for such pods is shortened to 10 s.
    const updater = await testApps.updater(2, [
      `--vpa-object-namespace=${currentNamespace()}`,
      '--in-recommendation-bounds-eviction-lifetime-threshold=10s',
    ]);
    await waitFor(
      'every pod of both workloads to carry the recommended requests',
      async () => {
        for (const name of ['native', 'tandem']) {
          const pods = await listPods(kube, currentNamespace(), name);
          const lowered = pods.filter(
            (pod) =>
              parseCpuMillicores(
                pod.spec?.containers[0]?.resources?.requests?.['cpu'] ?? '0',
              ) < 400,
          );
          if (lowered.length === 0 || lowered.length !== pods.length)
            return undefined;
        }
        return true;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
      async () =>
        `${await describeHpa('native')}\n${await describeHpa('tandem')}`,
    );
    // The updater's part is done. Left running, its 10 s threshold evicts again at each
    // move of the young recommendation (about every 10 s on a busy machine), faster than
    // metrics-server reports a new pod: the HPA would hold for lack of metrics, which is
    // not what this test measures.
    await updater.stop();
    await waitFor(
      "tandem's HPA to read its metric from the adapter",
      async () =>
        (await describeHpa('tandem')).includes('ValidMetricFound')
          ? true
          : undefined,
      { timeoutMs: 120_000, intervalMs: 2000 },
      async () => describeHpa('tandem'),
    );

    // The native HPA reads the same load against the lowered request and over-scales.
    await waitForReplicas(
      'native',
      (replicas) => replicas >= 1.5 * LOAD_CALLS_FOR,
      `at least ${1.5 * LOAD_CALLS_FOR} replicas`,
    );
    // Tandem's stays within one replica of what the load calls for, sync after sync.
    const seen: number[] = [];
    for (let sync = 0; sync < 6; sync += 1) {
      seen.push(await replicasOf('tandem'));
      await new Promise((resolve) => setTimeout(resolve, 5_000)); // one HPA sync period
    }
    expect({
      seen,
      state: await describeHpa('tandem'),
    }).toEqual({
      seen: seen.map((replicas) =>
        Math.abs(replicas - LOAD_CALLS_FOR) <= 1
          ? replicas
          : `${replicas} (off by more than one)`,
      ),
      state: expect.stringContaining('ValidMetricFound'),
    });
  });

  it('scales on the busy main container alone, where the native HPA averages in an idle sidecar and stays put', async () => {
    // app requests 200m, the sidecar 800m and idles: app at 90 % of its request on 2
    // replicas (360m in all) calls for ceil(2 × 90 / 60) = 3 replicas; the pod as a whole
    // runs at 181m / 1000m ≈ 18 %, which calls for 1 and is held at the minimum, 2.
    const containers = [
      container('app', { requests: { cpu: '200m', memory: '64Mi' } }),
      container('sidecar', { requests: { cpu: '800m', memory: '64Mi' } }),
    ];
    const [tandem, native] = ['sidecar-tandem', 'sidecar-native'];
    for (const name of [tandem, native]) {
      await createWorkload(name, 2, containers);
      await drive(name, 360, { app: 1, sidecar: 0 });
    }
    const bounds = { minReplicas: 2, maxReplicas: 6 };
    await createHpa(
      tandem,
      tandemMetric('cpu_utilization_of_original_request', '60', 'app'),
      bounds,
    );
    await createHpa(native, nativeCpu(60), bounds);

    const nativeReplicas = sampleReplicas(native);
    let nativeSeen: number[] = [];
    try {
      await waitForReplicas(
        tandem,
        (replicas) => replicas >= 3,
        'at least 3 replicas',
      );
      // The native HPA did read its metric (it is not quiet for lack of one).
      await waitFor(
        `${native} to compute a utilization below its 60 % target`,
        async () => {
          const utilization = (await readHpa(native)).status
            ?.currentMetrics?.[0]?.resource?.current.averageUtilization;
          return utilization !== undefined && utilization < 60
            ? utilization
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
        () => describeHpa(native),
      );
      // A few more of its syncs, in which it must not move either.
      await sleep(3 * HPA_SYNC_MS);
    } finally {
      nativeSeen = await nativeReplicas.stop();
    }
    const hpa = await readHpa(native);
    expect({
      maxReplicasSeen: Math.max(...nativeSeen),
      // Never rescaled, and it wants fewer replicas than its minimum.
      lastScaleTime: hpa.status?.lastScaleTime,
      desiredReplicas: hpa.status?.desiredReplicas,
      limited: (await hpaCondition(native, 'ScalingLimited'))?.reason,
      state: await describeHpa(native),
    }).toEqual({
      maxReplicasSeen: 2,
      lastScaleTime: undefined,
      desiredReplicas: 2,
      limited: 'TooFewReplicas',
      state: expect.any(String),
    });
  }, 240_000);

  it('scales to what the load and the declared limit call for on cpu_utilization_of_limit', async () => {
    // 1800m in all against a 1000m limit at a 60 % target: ceil(1800 / 600) = 3 replicas.
    const name = 'of-limit';
    await createWorkload(name, 1, [
      container('app', {
        requests: { cpu: '250m', memory: '64Mi' },
        limits: { cpu: '1', memory: '256Mi' },
      }),
    ]);
    await drive(name, 1800);
    // maxReplicas 3: while the new pods start, the first pod's usage still shows most of the
    // load (metrics-server's rate lags the driver's split), and the HPA, counting the pods
    // without metrics at 0, may ask for 4 for a sync or two; at 4 pods of 45 % it computes
    // ceil(4 × 45.x / 60) = 4 on any jitter above 45 and never comes back. The cap keeps
    // that transient from sticking; ScalingLimited=False below shows the HPA's own
    // recommendation is 3, not a clamped larger one.
    await createHpa(name, tandemMetric('cpu_utilization_of_limit', '60'), {
      minReplicas: 1,
      maxReplicas: 3,
    });
    await waitForReplicas(name, (replicas) => replicas === 3, '3 replicas');
    // Settled at 3, on a metric the HPA controller read through the aggregator.
    const settled = await waitFor(
      `${name} to settle at 3 replicas with a valid metric near its 60 % target`,
      async () => {
        const status = (await readHpa(name)).status;
        const condition = (type: string) =>
          status?.conditions?.find((c) => c.type === type);
        const active = condition('ScalingActive');
        const limited = condition('ScalingLimited');
        const value = status?.currentMetrics?.[0]?.pods?.current.averageValue;
        const percent =
          value === undefined ? undefined : parseCpuMillicores(value) / 1000;
        return status?.currentReplicas === 3 &&
          status.desiredReplicas === 3 &&
          active?.status === 'True' &&
          active.reason === 'ValidMetricFound' &&
          limited?.status === 'False' &&
          percent !== undefined &&
          Math.abs(percent - 60) <= 6
          ? status
          : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 1000 },
      async () =>
        `${await describeHpa(name)}; adapter output tail:\n${await adapter.tail(10)}`,
    );
    expect({
      replicas: await replicasOf(name),
      metric: settled.currentMetrics?.[0]?.pods?.metric.name,
    }).toEqual({ replicas: 3, metric: 'cpu_utilization_of_limit' });
  });

  it('scales a Deployment on its Object metric, the mean over its Ready pods in whole percent', async () => {
    // 900m in all against 500m requested at a 60 % target: 180 % on one pod, so
    // ceil(1 × 180 / 60) = 3 replicas, where each pod runs at 60 %.
    const name = 'object';
    await createWorkload(name, 1, [
      container('app', { requests: { cpu: '500m', memory: '64Mi' } }),
    ]);
    await drive(name, 900);
    const metric = 'cpu_utilization_of_original_request';
    // The aggregator's answer for a Deployment nobody created is a precise 404.
    const missing = await apiServerGet(
      kube.config,
      `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${currentNamespace()}/deployments.apps/absent/${metric}`,
    );
    expect({ status: missing.status, body: missing.body }).toEqual({
      status: 404,
      body: expect.objectContaining({
        kind: 'Status',
        message: `the server could not find the metric ${metric} for deployments.apps absent: deployment ${currentNamespace()}/absent not found`,
      }),
    });
    // maxReplicas 3 for the reason the cpu_utilization_of_limit test gives.
    await createHpa(
      name,
      {
        type: 'Object',
        object: {
          describedObject: { apiVersion: 'apps/v1', kind: 'Deployment', name },
          metric: { name: metric },
          target: { type: 'Value', value: '60' },
        },
      },
      { minReplicas: 1, maxReplicas: 3 },
    );
    const settled = await waitFor(
      `${name} to settle at 3 replicas on a whole-percent Object metric near 60`,
      async () => {
        const status = (await readHpa(name)).status;
        const active = status?.conditions?.find(
          (c) => c.type === 'ScalingActive',
        );
        const value = status?.currentMetrics?.[0]?.object?.current.value;
        return status?.currentReplicas === 3 &&
          status.desiredReplicas === 3 &&
          active?.reason === 'ValidMetricFound' &&
          value !== undefined &&
          /^[0-9]+$/.test(value) &&
          Math.abs(Number(value) - 60) <= 6
          ? status
          : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 1000 },
      async () =>
        `${await describeHpa(name)}; adapter output tail:\n${await adapter.tail(10)}`,
    );
    expect({
      replicas: await replicasOf(name),
      described: settled.currentMetrics?.[0]?.object?.describedObject,
    }).toEqual({
      replicas: 3,
      described: { apiVersion: 'apps/v1', kind: 'Deployment', name },
    });
  });

  it('measures a pod the webhook never saw against its controller’s template, and follows a change of that template', async () => {
    // A bare ReplicaSet: unlike a Deployment's, its template can change while its pods
    // stay, so the answer must follow the template, not what was worked out before.
    const name = 'template';
    const labels = { app: name };
    const template = (cpu: string) => ({
      metadata: { labels },
      spec: {
        ...ON_FAKE_NODES,
        containers: [container('app', { requests: { cpu, memory: '64Mi' } })],
      },
    });
    await kube.apps.createNamespacedReplicaSet({
      namespace: currentNamespace(),
      body: {
        metadata: { name, labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: template('500m'),
        },
      },
    });
    try {
      await drive(name, 250);
      const path = `${podsMetricPath('cpu_utilization_of_original_request')}?labelSelector=app%3D${name}`;
      let last: RawResponse | undefined;
      const valueBecomes = (expected: string) =>
        waitFor(
          `${name}'s utilization of its template's request to read ${expected}`,
          async () => {
            last = await apiServerGet(kube.config, path);
            const items = (last.body as { items?: { value: string }[] }).items;
            return items?.length === 1 && items[0]?.value === expected
              ? true
              : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 500 },
          async () =>
            `${last === undefined ? 'no answer' : describeResponse(last)}; adapter output tail:\n${await adapter.tail(10)}`,
        );
      // 250m of 500m, then of 1000m once the template says so; the pod never changes.
      await valueBecomes('50');
      await kube.apps.patchNamespacedReplicaSet({
        namespace: currentNamespace(),
        name,
        body: [
          {
            op: 'replace',
            path: '/spec/template/spec/containers/0/resources/requests/cpu',
            value: '1',
          },
        ],
      });
      await valueBecomes('25');
    } finally {
      await kube.apps.deleteNamespacedReplicaSet({
        namespace: currentNamespace(),
        name,
      });
    }
  });

  itLocal(
    'refuses callers without credentials or RBAC, directly and through the aggregator, and serves them once RBAC allows',
    async () => {
      const namespace = currentNamespace();
      const path = podsMetricPath('cpu_usage');

      // (a) Front-proxy headers from a client with no certificate are not believed.
      const impostor = await adapterGet(path, {
        'X-Remote-User': 'system:admin',
        'X-Remote-Group': 'system:masters',
      });
      expect({ status: impostor.status, body: impostor.body }).toEqual({
        status: 401,
        body: expect.objectContaining({ kind: 'Status', code: 401 }),
      });
      // As k8s.io/apiserver: the probes answer anyone, /metrics needs credentials.
      expect((await adapterGet('/healthz')).status).toBe(200);
      const scrape = await adapterGet('/metrics');
      expect({ status: scrape.status, body: scrape.body }).toEqual({
        status: 401,
        body: expect.objectContaining({ kind: 'Status', code: 401 }),
      });

      // (b) A ServiceAccount with no RBAC: authenticated, but not authorized.
      const serviceAccount = 'metrics-reader';
      const user = `system:serviceaccount:${namespace}:${serviceAccount}`;
      await kube.core.createNamespacedServiceAccount({
        namespace,
        body: { metadata: { name: serviceAccount } },
      });
      const token = (
        await kube.core.createNamespacedServiceAccountToken({
          namespace,
          name: serviceAccount,
          body: { spec: { audiences: [], expirationSeconds: 600 } },
        })
      ).status?.token;
      if (token === undefined)
        throw new Error('no token for the ServiceAccount');
      const asReader = tokenKubeConfig(kube.config, token);
      const bearer = { Authorization: `Bearer ${token}` };

      // Authenticated is not enough for /metrics either: it takes `get` on that URL.
      expect((await adapterGet('/metrics', bearer)).status).toBe(403);
      const direct = await adapterGet(path, bearer);
      expect({ status: direct.status, body: direct.body }).toEqual({
        status: 403,
        body: expect.objectContaining({
          kind: 'Status',
          code: 403,
          reason: 'Forbidden',
          message: expect.stringContaining(`User "${user}"`),
        }),
      });
      const aggregated = await apiServerGet(asReader, path);
      expect({ status: aggregated.status, body: aggregated.body }).toEqual({
        status: 403,
        body: expect.objectContaining({
          kind: 'Status',
          code: 403,
          message: expect.stringContaining(`User "${user}"`),
        }),
      });

      // (c) Granted get on pods/cpu_usage: the same read through the aggregator answers.
      await grantMetricRead(kube, namespace, serviceAccount, [
        'pods/cpu_usage',
      ]);
      // RBAC and the adapter's 10 s decision cache catch up within a few seconds.
      const allowed = await waitForStatus(
        `${user} to read ${path} through the aggregator`,
        () => apiServerGet(asReader, path),
        200,
      );
      expect(allowed.body).toEqual(
        expect.objectContaining({
          kind: 'MetricValueList',
          apiVersion: 'custom.metrics.k8s.io/v1beta2',
          items: expect.any(Array),
        }),
      );
      // Only that metric: another one stays refused.
      const other = await apiServerGet(
        asReader,
        podsMetricPath('memory_usage'),
      );
      expect(other.status).toBe(403);
    },
  );

  itLocal(
    'sends the API server a bounded number of TokenReviews however many random tokens arrive',
    async () => {
      // Waves of 60 random tokens until one is throttled: a loaded machine sends them more
      // slowly, so the bucket may refill in between, but never as fast as 60 a wave.
      const started = Date.now();
      const answers: RawResponse[] = [];
      for (
        let wave = 0;
        wave < 10 && !answers.some(({ status }) => status === 429);
        wave++
      )
        answers.push(
          ...(await Promise.all(
            Array.from({ length: 60 }, (_, i) =>
              adapterGet(podsMetricPath('cpu_usage'), {
                Authorization: `Bearer random-${started}-${wave}-${i}`,
              }),
            ),
          )),
        );
      const seconds = (Date.now() - started) / 1000;
      const counts = { 401: 0, 429: 0 };
      for (const { status } of answers)
        if (status === 401 || status === 429) counts[status] += 1;
      // Each 401 is a TokenReview sent; each 429 one not sent (TOKEN_REVIEW_RATE: 10/s,
      // burst 20, in apps/metrics-adapter/src/auth/token-review.ts).
      expect(
        answers
          .map(({ status }) => status)
          .filter((status) => status !== 401 && status !== 429),
      ).toEqual([]);
      expect(counts[401]).toBeLessThanOrEqual(20 + Math.ceil(10 * seconds));
      expect(counts[429]).toBeGreaterThan(0);
      const throttled = answers.find(({ status }) => status === 429);
      expect(throttled?.body).toEqual(
        expect.objectContaining({ kind: 'Status', reason: 'TooManyRequests' }),
      );
    },
  );

  itLocal(
    'keeps discovery up and answers 503 naming the source while metrics.k8s.io is down, then serves again',
    async () => {
      const path = podsMetricPath('cpu_usage');
      const discovery = '/apis/custom.metrics.k8s.io/v1beta2';
      metricsServicePort = await readMetricsServicePort();
      expect(metricsServicePort).toEqual(expect.any(Number));
      await waitForStatus(
        'a first metric read',
        () => apiServerGet(kube.config, path),
        200,
      );

      await setMetricsServicePort(CLOSED_PORT);
      try {
        // The adapter reuses a namespace's usage for 5 s (--metrics-cache-ttl here).
        const down = await waitForStatus(
          'a metric read to fail while metrics.k8s.io is down',
          () => apiServerGet(kube.config, path),
          503,
        );
        expect(down.body).toEqual(
          expect.objectContaining({
            kind: 'Status',
            code: 503,
            reason: 'ServiceUnavailable',
            message: expect.stringMatching(
              /^unable to read pod usage for namespace \S+ from metrics\.k8s\.io: /,
            ),
          }),
        );
        const listed = await apiServerGet(kube.config, discovery);
        expect({ status: listed.status, body: listed.body }).toEqual({
          status: 200,
          body: expect.objectContaining({
            kind: 'APIResourceList',
            groupVersion: 'custom.metrics.k8s.io/v1beta2',
          }),
        });
      } finally {
        await setMetricsServicePort(metricsServicePort ?? 0);
      }
      await waitForMetricsApiAvailable();
      const again = await waitForStatus(
        'metric reads to answer again once metrics.k8s.io is back',
        () => apiServerGet(kube.config, path),
        200,
        90_000,
      );
      expect(again.body).toEqual(
        expect.objectContaining({ kind: 'MetricValueList' }),
      );
    },
  );
});
