import { hostname } from 'node:os';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../harness/otlp-receiver.ts';
import {
  startRecommender,
  type RecommenderProcess,
} from '../harness/recommender-process.ts';
import { stopAllApps } from '../harness/app-process.ts';
import { waitFor } from '../harness/wait.ts';

const describeLocal = isLocalCluster() ? describe : describe.skip;

/** Upstream's RunOnce step names, each a child span of `recommender.cycle`. */
const CYCLE_STEPS = [
  'LoadVPAs',
  'LoadPods',
  'LoadMetrics',
  'UpdateVPAs',
  'MaintainCheckpoints',
  'GarbageCollect',
];
const POD_NAME = 'tandem-recommender-e2e-0';

const { kube, namespace: currentNamespace } =
  useTestNamespace('recommender-otel');

interface Cycle {
  root: ReceivedSpan;
  children: ReceivedSpan[];
}

/** The first `recommender.cycle` root span whose six step spans have all arrived. */
function completeCycle(spans: ReceivedSpan[]): Cycle | undefined {
  for (const root of spans) {
    if (root.name !== 'recommender.cycle' || root.parentSpanId !== '') continue;
    const children = spans.filter(
      (span) =>
        span.traceId === root.traceId && span.parentSpanId === root.spanId,
    );
    if (CYCLE_STEPS.every((step) => children.some((s) => s.name === step)))
      return { root, children };
  }
  return undefined;
}

describeLocal('the recommender exports its cycles as OTLP traces', () => {
  let receiver: OtlpReceiver;
  let recommender: RecommenderProcess;
  let namespace: string;
  let cycle: Cycle;

  beforeAll(async () => {
    namespace = currentNamespace();
    await installTandemCrds(kube);
    receiver = await startOtlpReceiver();
    recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: 5,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        // Export soon after each cycle rather than every 5 s (the default).
        OTEL_BSP_SCHEDULE_DELAY: '500',
        POD_NAME,
        POD_NAMESPACE: namespace,
        OTEL_RESOURCE_ATTRIBUTES: 'k8s.cluster.name=tandem-e2e',
      },
    });
  });
  afterAll(async () => {
    await stopAllApps();
    await receiver?.close();
  });

  it('sends one recommender.cycle root span per cycle with the six step spans as children', async () => {
    cycle = await waitFor(
      'a recommender.cycle span with its six child spans at the OTLP receiver',
      async () => completeCycle(receiver.spans()),
      { timeoutMs: 60_000, intervalMs: 250 },
      async () =>
        `${receiver.requestCount()} export request(s), spans ${JSON.stringify(
          receiver
            .spans()
            .map((span) => `${span.name}:${span.spanId}<-${span.parentSpanId}`),
        )}, errors ${JSON.stringify(receiver.errors())}; output tail:\n${recommender.tail(10)}`,
    );
    const { root, children } = cycle;
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root.spanId).toMatch(/^[0-9a-f]{16}$/);
    for (const step of CYCLE_STEPS) {
      const matching = children.filter((span) => span.name === step);
      expect({ step, count: matching.length }).toEqual({ step, count: 1 });
      expect(matching[0]?.traceId).toBe(root.traceId);
      expect(matching[0]?.parentSpanId).toBe(root.spanId);
    }
    // One root per trace: the step spans are the only spans of that trace besides
    // their own descendants.
    const roots = receiver
      .spans()
      .filter(
        (span) => span.traceId === root.traceId && span.parentSpanId === '',
      );
    expect(roots.map((span) => span.name)).toEqual(['recommender.cycle']);
    expect(receiver.errors()).toEqual([]);
  });

  it('names the service and the pod in the resource attributes', () => {
    expect(cycle).toBeDefined();
    expect(cycle.root.resource['service.name']).toBe('tandem-recommender');
    expect(cycle.root.resource['k8s.pod.name']).toBe(POD_NAME);
    expect(cycle.root.resource['k8s.namespace.name']).toBe(namespace);
  });

  it("adds NodeSDK's detected attributes and OTEL_RESOURCE_ATTRIBUTES to the resource", () => {
    expect(cycle).toBeDefined();
    expect(cycle.root.resource).toMatchObject({
      'k8s.cluster.name': 'tandem-e2e',
      'service.instance.id': expect.any(String),
      'process.pid': recommender.pid,
      'process.runtime.name': 'nodejs',
      'host.name': hostname(),
      'os.type': expect.any(String),
      'telemetry.sdk.language': 'nodejs',
    });
  });

  it('puts the cycle counts on the root span', () => {
    expect(cycle).toBeDefined();
    const { attributes } = cycle.root;
    for (const attribute of ['vpas', 'pods', 'samples'])
      expect({ attribute, type: typeof attributes[attribute] }).toEqual({
        attribute,
        type: 'number',
      });
    // The write count: one `writes`, or status and checkpoint writes apart.
    const writes =
      attributes['writes'] ??
      (typeof attributes['statusWrites'] === 'number' &&
      typeof attributes['checkpointWrites'] === 'number'
        ? attributes['statusWrites'] + attributes['checkpointWrites']
        : undefined);
    expect({ writes: typeof writes, attributes }).toEqual({
      writes: 'number',
      attributes,
    });
  });

  it('exits 0 on SIGTERM after flushing its spans', async () => {
    const cyclesBefore = recommender.cycleCount();
    expect(await recommender.stop()).toBe(0);
    // Every cycle it logged as done has its root span at the receiver by now.
    const roots = receiver
      .spans()
      .filter((span) => span.name === 'recommender.cycle');
    expect(roots.length).toBeGreaterThanOrEqual(cyclesBefore);
    expect(roots.length).toBeGreaterThanOrEqual(recommender.cycleCount());
  });
});
