import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { apiServerRequests } from '../harness/apiserver-requests.ts';
import { stopAllApps } from '../harness/app-process.ts';
import { httpGet } from '../harness/http.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  startRecommender,
  startRecommenderWithArgs,
  type RecommenderProcess,
} from '../harness/recommender-process.ts';
import { vpaObjects } from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';
import { runDeployment } from '../harness/workloads.ts';

// Swapping the image in upstream's manifests is the first thing a user switching over
// does: the recommender must start with exactly their argument lists and pass their
// probes (GET /health-check on port 8942, the `prometheus` port). And the client-side
// limit `--kube-api-qps` must hold however much a cycle wants to write.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('drop-in');
let namespace: string;
const vpas = vpaObjects(kube, () => namespace);

/** Upstream 1.8's `deploy/recommender-deployment.yaml`: no arguments at all. */
const UPSTREAM_DEPLOYMENT_ARGS: string[] = [];
/** Upstream's Helm chart with its default values (2 replicas, so leader election on). */
const upstreamChartArgs = (releaseNamespace: string) => [
  '--v=4',
  '--stderrthreshold=info',
  '--leader-elect=true',
  `--leader-elect-resource-namespace=${releaseNamespace}`,
  '--leader-elect-resource-name=vpa-recommender-lease',
  '--leader-elect-lease-duration=15s',
  '--leader-elect-renew-deadline=10s',
  '--leader-elect-retry-period=2s',
];
/** Where upstream's probes look: the `prometheus` container port. */
const PROBE_URL = 'http://127.0.0.1:8942/health-check';

/** Waits until upstream's probe passes, as the kubelet would see it. */
async function waitForProbe(recommender: RecommenderProcess): Promise<void> {
  await waitFor(
    `GET ${PROBE_URL} to answer 200`,
    async () => {
      const answer = await httpGet(PROBE_URL).catch(() => undefined);
      return answer?.status === 200 ? answer : undefined;
    },
    { timeoutMs: 30_000 },
    async () => recommender.tail(15),
  );
}

describeLocal("the recommender in upstream's manifests", () => {
  beforeAll(async () => {
    namespace = currentNamespace();
    await installTandemCrds(kube);
  });
  afterEach(async () => {
    await stopAllApps();
  });

  it("starts with upstream's deployment arguments and passes its probes", async () => {
    const recommender = await startRecommenderWithArgs(
      UPSTREAM_DEPLOYMENT_ARGS,
      { env: { KUBECONFIG: clusterKubeconfig() } },
    );
    await waitForProbe(recommender);
    expect(recommender.url).toMatch(/:8942$/);
    expect(recommender.exitStatus()).toBeUndefined();
  });

  it("starts with upstream's chart arguments, leads, and passes its probes", async () => {
    const recommender = await startRecommenderWithArgs(
      upstreamChartArgs(namespace),
      {
        env: { KUBECONFIG: clusterKubeconfig(), POD_NAME: 'vpa-recommender-0' },
      },
    );
    await waitForProbe(recommender);
    // klog's flag is accepted and named once; leader election works as the chart asks.
    expect(
      recommender
        .entries()
        .filter((entry) => entry.msg === 'flags accepted and ignored'),
    ).toEqual([expect.objectContaining({ flags: ['stderrthreshold'] })]);
    await waitFor(
      'the chart-started recommender to take the lead',
      async () =>
        recommender.entries().some((entry) => entry.msg === 'started leading')
          ? true
          : undefined,
      { timeoutMs: 30_000 },
      async () => recommender.tail(15),
    );
  });

  it('keeps its API writes within --kube-api-qps however many a cycle wants', async () => {
    const QPS = 4;
    const BURST = 4;
    const VPAS = 24;
    await runDeployment(kube, namespace, {
      name: 'busy',
      replicas: 2,
      cpuRequest: '100m',
      memoryRequest: '128Mi',
      initialUsage: { cpu: '150m', memory: '200Mi' },
    });
    // Every VPA of the same Deployment gets its own checkpoint, written every cycle.
    for (let index = 0; index < VPAS; index += 1)
      await vpas.createVpa(`busy-${index}`, 'busy');
    const recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: 1,
      extraArgs: [`--kube-api-qps=${QPS}`, `--kube-api-burst=${BURST}`],
    });
    await waitFor(
      'every VPA to have a checkpoint',
      async () => {
        const written = await Promise.all(
          Array.from({ length: VPAS }, (_, index) =>
            vpas.readCheckpoint(`busy-${index}-app`),
          ),
        );
        return written.every((checkpoint) => checkpoint !== undefined)
          ? true
          : undefined;
      },
      { timeoutMs: 90_000 },
      async () => recommender.tail(15),
    );

    // A window in which the recommender wants ~24 status and ~24 checkpoint writes a
    // second (the bounds narrow every cycle, so every status changes).
    const writes = async () =>
      (await apiServerRequests(kube, {
        verb: 'PATCH',
        resource: 'verticalpodautoscalercheckpoints',
      })) +
      (await apiServerRequests(kube, {
        verb: 'PATCH',
        resource: 'verticalpodautoscalers',
        subresource: 'status',
      }));
    // On a loaded machine each count (two reads of /metrics) takes seconds, and writes
    // completing meanwhile may or may not be counted: the limit is checked against the
    // longest window the counted writes can span (before the first count to after the
    // last), the demand against the shortest (after the first count to before the last).
    const startMs = Date.now();
    const before = await writes();
    const innerStartMs = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const innerS = (Date.now() - innerStartMs) / 1000;
    const written = (await writes()) - before;
    const outerS = (Date.now() - startMs) / 1000;

    // Every request of the process (lists, watches, writes) shares the bucket, so the
    // writes stay within qps × window plus one burst.
    expect(written).toBeLessThanOrEqual(QPS * outerS + BURST);
    // And the demand was there: without the limit it would be far more.
    expect(written).toBeGreaterThanOrEqual((QPS * innerS) / 2);
  });
});
