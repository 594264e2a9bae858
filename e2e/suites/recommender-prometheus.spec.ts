import {
  AggregateContainerState,
  ContainerState,
  type ContainerUsageSample,
  recommendPod,
  toContainerRecommendations,
} from '@tandem/estimators';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { httpGet } from '../harness/http.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  freePort,
  startPrometheus,
  type MatrixSeries,
  type PrometheusServer,
  type WrittenSeries,
} from '../harness/prometheus.ts';
import {
  startRecommender,
  type LogEntry,
  type RecommenderProcess,
} from '../harness/recommender-process.ts';
import { stopAllApps } from '../harness/app-process.ts';
import { waitFor } from '../harness/wait.ts';
import {
  CHECKPOINTS,
  VPA_GROUP,
  VPA_VERSION,
  recommendationFor,
  vpaObjects,
} from '../harness/vpa-objects.ts';
import { runDeployment } from '../harness/workloads.ts';

// The recommender runs as a host process next to a host Prometheus.
const describeLocal = isLocalCluster() ? describe : describe.skip;

/** Long enough that the first cycle's status can be read before a second cycle runs. */
const INTERVAL_SECONDS = 30;
const HISTORY_LENGTH = '4h';
const HISTORY_RESOLUTION = '5m';
/** Upstream's container selector with the default label flags (§4.4). */
const SELECTOR =
  'job="kubernetes-cadvisor", pod_name=~".+", name!="POD", name!=""';
const CPU_QUERY = `rate(container_cpu_usage_seconds_total{${SELECTOR}}[${HISTORY_RESOLUTION}])`;
const MEMORY_QUERY = `container_memory_working_set_bytes{${SELECTOR}}`;
/** An instant query must return a matrix (§4.4), hence the range selector. */
const POD_LABELS_METRIC = `up{job="kubernetes-pods"}[${HISTORY_LENGTH}]`;
/** What a cycle with no history at all gives as CPU upper bound (1e14: confidence 0). */
const NO_HISTORY_UPPER_CPU = '100G';

const { kube, namespace: currentNamespace } = useTestNamespace('rec-prom');
let namespace: string;
const vpas = vpaObjects(kube, () => namespace);
let prometheus: PrometheusServer | undefined;

/** Prometheus's Kubernetes discovery turns pod labels into label names this way. */
const sanitized = (label: string) => label.replace(/[^a-zA-Z0-9_]/g, '_');

/**
 * Three hours of cAdvisor-style usage, one raw sample a minute up to two minutes ago, for
 * each pod: a CPU-seconds counter whose rate changes every minute and a working-set gauge,
 * plus an `up` series carrying the pod's labels, as a kubernetes-pods scrape job would.
 */
function usageSeries(
  pods: { name: string; labels: Record<string, string> }[],
  nowSeconds: number,
): WrittenSeries[] {
  const start = nowSeconds - 3 * 3600;
  const times = Array.from({ length: 179 }, (_, i) => start + i * 60);
  return pods.flatMap(({ name, labels }, p) => {
    let cpuSeconds = 0;
    const container = {
      job: 'kubernetes-cadvisor',
      namespace,
      pod_name: name,
      name: 'app',
    };
    return [
      {
        name: 'container_cpu_usage_seconds_total',
        labels: container,
        points: times.map((time, i): [number, number] => {
          cpuSeconds += 60 * (0.1 + 0.05 * ((i + p) % 9));
          return [time, Number(cpuSeconds.toFixed(3))];
        }),
      },
      {
        name: 'container_memory_working_set_bytes',
        labels: container,
        points: times.map((time, i): [number, number] => [
          time,
          (200 + 16 * ((i * 7 + p) % 11)) * 1024 * 1024,
        ]),
      },
      {
        name: 'up',
        labels: {
          job: 'kubernetes-pods',
          kubernetes_namespace: namespace,
          kubernetes_pod_name: name,
          ...Object.fromEntries(
            Object.entries(labels).map(([label, value]) => [
              `pod_label_${sanitized(label)}`,
              value,
            ]),
          ),
        },
        points: times.map((time): [number, number] => [time, 1]),
      },
    ];
  });
}

/** The samples upstream takes from the answers: cores to whole millicores, whole bytes, finite only. */
function samplesByPod(
  cpu: MatrixSeries[],
  memory: MatrixSeries[],
): Map<string, ContainerUsageSample[]> {
  const byPod = new Map<string, ContainerUsageSample[]>();
  const add = (series: MatrixSeries[], resource: 'cpu' | 'memory') => {
    for (const { metric, values } of series) {
      const samples = byPod.get(metric['pod_name'] ?? '') ?? [];
      byPod.set(metric['pod_name'] ?? '', samples);
      for (const [time, text] of values) {
        const value = Number(text);
        if (!Number.isFinite(value)) continue;
        samples.push({
          timeMs: Math.round(time * 1000),
          resource,
          usage: Math.trunc(resource === 'cpu' ? value * 1000 : value),
        });
      }
    }
  };
  add(cpu, 'cpu');
  add(memory, 'memory');
  for (const samples of byPod.values())
    samples.sort((a, b) => a.timeMs - b.timeMs);
  return byPod;
}

async function entryOf(
  recommender: RecommenderProcess,
  description: string,
  match: (entry: LogEntry) => boolean,
  timeoutMs = 90_000,
): Promise<LogEntry> {
  return waitFor(
    `the recommender to log ${description}`,
    async () => recommender.entries().find(match),
    { timeoutMs },
    async () => `output tail:\n${recommender.tail(15)}`,
  );
}

describeLocal('the recommender with --storage=prometheus', () => {
  beforeAll(async () => {
    namespace = currentNamespace();
    await installTandemCrds(kube);
  });
  afterAll(async () => {
    await stopAllApps();
    await prometheus?.stop();
  });

  it('recommends from Prometheus history in its first cycle and writes no checkpoint', async () => {
    // Usage 0: metrics-server drops such containers, so the first cycle has no live sample
    // and its recommendation is the history's alone (checked below through `samples: 0`).
    const [pod] = await runDeployment(kube, namespace, {
      name: 'web',
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest: '256Mi',
      initialUsage: { cpu: '0', memory: '0' },
    });
    const podName = pod?.metadata?.name ?? '';
    const podLabels = pod?.metadata?.labels ?? {};
    await vpas.createVpa('web', 'web');
    // The running pod (upstream re-adds it with phase Unknown, then the pod listing takes
    // over) and a replaced pod of the same ReplicaSet that no longer exists: its history
    // must still count, which is what history is for after a rollout.
    prometheus = await startPrometheus(
      usageSeries(
        [
          { name: podName, labels: podLabels },
          {
            name: `${podName.replace(/-[^-]+$/, '')}-gone1`,
            labels: podLabels,
          },
        ],
        Math.floor(Date.now() / 1000) - 120,
      ),
    );

    const recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: INTERVAL_SECONDS,
      extraArgs: [
        '--storage=prometheus',
        `--prometheus-address=${prometheus.url}`,
        `--history-length=${HISTORY_LENGTH}`,
        `--history-resolution=${HISTORY_RESOLUTION}`,
        `--metric-for-pod-labels=${POD_LABELS_METRIC}`,
        `--vpa-object-namespace=${namespace}`,
      ],
    });
    const loaded = await entryOf(
      recommender,
      '"history loaded from Prometheus"',
      (entry) => entry.msg === 'history loaded from Prometheus',
    );
    expect(loaded).toMatchObject({
      address: prometheus.url,
      pods: 2,
      containers: 2,
    });

    const firstCycle = await entryOf(
      recommender,
      'its first "cycle done"',
      (entry) => entry.msg === 'cycle done',
      INTERVAL_SECONDS * 1000 + 90_000,
    );
    const vpa = await vpas.readVpa('web');
    expect(recommender.cycleCount()).toBe(1);
    expect(firstCycle['samples']).toBe(0);

    // The expected numbers come from the same answers the recommender got: the test asks
    // Prometheus the same queries over the same range (from the log line), so rate()
    // extrapolation at the window edges is reproduced exactly, and the samples go through
    // @tandem/estimators as upstream's model feeds them (one ContainerState per pod, one
    // aggregate for the shared label set).
    const range = {
      start: String(Number(loaded['startMs']) / 1000),
      end: String(Number(loaded['endMs']) / 1000),
      step: String(Number(loaded['stepMs']) / 1000),
    };
    const byPod = samplesByPod(
      await prometheus.queryMatrix('query_range', {
        query: CPU_QUERY,
        ...range,
      }),
      await prometheus.queryMatrix('query_range', {
        query: MEMORY_QUERY,
        ...range,
      }),
    );
    expect(byPod.size).toBe(2);
    const aggregate = new AggregateContainerState(Number(loaded['endMs']));
    let sampleCount = 0;
    for (const samples of byPod.values()) {
      const state = new ContainerState(aggregate);
      for (const sample of samples)
        if (state.addSample(sample)) sampleCount += 1;
    }
    expect(loaded['samples']).toBe(sampleCount);
    const [expected] = toContainerRecommendations(
      recommendPod(new Map([['app', aggregate]])),
    );

    const recommendation = recommendationFor(vpa);
    expect(recommendation?.upperBound?.['cpu']).not.toBe(NO_HISTORY_UPPER_CPU);
    expect(recommendation).toEqual({
      containerName: 'app',
      target: expected?.target,
      lowerBound: expected?.lowerBound,
      upperBound: expected?.upperBound,
      uncappedTarget: expected?.uncappedTarget,
    });

    const checkpoints = (await kube.customObjects.listNamespacedCustomObject({
      group: VPA_GROUP,
      version: VPA_VERSION,
      namespace,
      plural: CHECKPOINTS,
    })) as { items: unknown[] };
    expect(checkpoints.items).toEqual([]);
    expect(await recommender.stop()).toBe(0);
  });

  it('warns and recommends from live metrics when Prometheus cannot be reached', async () => {
    // A port nothing listens on.
    const closed = await freePort();
    const address = `http://127.0.0.1:${closed}`;
    await runDeployment(kube, namespace, {
      name: 'live',
      replicas: 1,
      cpuRequest: '500m',
      memoryRequest: '512Mi',
      initialUsage: { cpu: '500m', memory: '500Mi' },
    });
    await vpas.createVpa('live', 'live');
    const recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: 5,
      extraArgs: [
        '--storage=prometheus',
        `--prometheus-address=${address}`,
        `--vpa-object-namespace=${namespace}`,
      ],
    });
    const warning = await entryOf(
      recommender,
      'a warning that history was not loaded',
      (entry) =>
        typeof entry.msg === 'string' &&
        entry.msg.startsWith('history not loaded'),
    );
    expect(warning['msg']).toBe(
      `history not loaded from Prometheus at ${address}, starting without history: CPU usage query rate(container_cpu_usage_seconds_total{${SELECTOR}, namespace="${namespace}"}[1h]): ${address}/api/v1/query_range: connect ECONNREFUSED 127.0.0.1:${closed}`,
    );

    const { recommendation } = await vpas.waitForRecommendation(
      'live',
      'a recommendation from live metrics',
      { context: () => `recommender output tail:\n${recommender.tail(15)}` },
    );
    // Constant 500m / 500Mi usage, golden vector 15/16 (as in recommender.spec.ts).
    expect(recommendation.target).toEqual({ cpu: '587m', memory: '628694953' });
    expect(recommender.exitStatus()).toBeUndefined();

    const { body } = await httpGet(`${recommender.url}/metrics`);
    expect(body).toContain(
      'tandem_recommender_recovered_errors_total{kind="prometheus-history"} 1',
    );
    expect(body).toContain(
      'vpa_recommender_prometheus_client_api_requests_count{code="error",method="post"} 1',
    );
  });
});
