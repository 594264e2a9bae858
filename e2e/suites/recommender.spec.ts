import { parseCpuMillicores, parseMemoryBytes } from '@tandem/vpa-api';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { httpGet } from '../harness/http.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  startRecommender,
  type RecommenderProcess,
  TEST_INTERVAL_SECONDS,
} from '../harness/recommender-process.ts';
import { stopAllApps } from '../harness/app-process.ts';
import { simulateOomKills } from '../harness/simulation.ts';
import { waitFor } from '../harness/wait.ts';
import {
  condition,
  recommendationFor,
  vpaObjects,
  type Checkpoint,
  type ContainerRecommendation,
  type Vpa,
} from '../harness/vpa-objects.ts';
import { runDeployment } from '../harness/workloads.ts';

// The recommender runs as a host process and OOMs are simulated by the local kwok stages.
const describeLocal = isLocalCluster() ? describe : describe.skip;

/** What a cycle with no history at all gives as upper bound (1e14: confidence 0). */
const NO_HISTORY_UPPER = { cpu: '100G', memory: '97656250000Ki' };

const { kube, namespace: currentNamespace } = useTestNamespace('recommender');
let namespace: string;
/** The recommender the tests talk to; the restart test replaces it. */
let recommender: RecommenderProcess;

const vpas = vpaObjects(kube, () => namespace);
const { createVpa, readVpa, readCheckpoint } = vpas;

/** The last VPA status seen plus the recommender's log tail: what a timeout reports. */
function observer(read: () => Vpa | undefined): () => Promise<string> {
  return async () =>
    `status ${JSON.stringify(read()?.status)}; recommender output tail:\n${recommender.tail(15)}`;
}

/** Waits for a recommendation of container `app` that `accept` takes. */
function waitForRecommendation(
  name: string,
  description: string,
  accept?: (recommendation: ContainerRecommendation, vpa: Vpa) => boolean,
  timeoutMs?: number,
) {
  return vpas.waitForRecommendation(name, description, {
    accept,
    timeoutMs,
    context: () => `recommender output tail:\n${recommender.tail(15)}`,
  });
}

/** Waits until `count` more "cycle done" lines than now have been logged. */
async function waitForCycles(count: number): Promise<void> {
  const target = recommender.cycleCount() + count;
  await waitFor(
    `${count} more recommender cycles (to ${target} "cycle done" lines)`,
    async () => (recommender.cycleCount() >= target ? true : undefined),
    { timeoutMs: (count + 2) * TEST_INTERVAL_SECONDS * 1000 + 30_000 },
    async () =>
      `${recommender.cycleCount()} cycles; output tail:\n${recommender.tail(15)}`,
  );
}

describeLocal('the recommender process against the local cluster', () => {
  beforeAll(async () => {
    namespace = currentNamespace();
    await installTandemCrds(kube);
    recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: TEST_INTERVAL_SECONDS,
    });
  });
  afterAll(async () => {
    await stopAllApps();
  });

  it('serves /healthz, /readyz and /metrics on its ops address', async () => {
    await waitForCycles(1);
    for (const path of ['/healthz', '/readyz']) {
      const { status, body } = await httpGet(`${recommender.url}${path}`);
      expect({ path, status }).toEqual({ path, status: 200 });
      expect(body).toContain('ok');
    }
    const metrics = await httpGet(`${recommender.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^# (HELP|TYPE) /m);
  });

  it('recommends exactly 587m / 628694953 for a steady 500m / 500Mi container', async () => {
    await runDeployment(kube, namespace, {
      name: 'steady',
      replicas: 1,
      cpuRequest: '500m',
      memoryRequest: '512Mi',
      initialUsage: { cpu: '500m', memory: '500Mi' },
    });
    await createVpa('steady', 'steady');

    const { vpa, recommendation } = await waitForRecommendation(
      'steady',
      'a recommendation for container app',
    );
    // Constant usage: every sample lands in one bucket, so the 90th percentile is that
    // bucket's end (0.5111 core, 546691264 B) plus the 15 % margin (golden vector 15/16).
    expect(recommendation.target).toEqual({
      cpu: '587m',
      memory: '628694953',
    });
    expect(recommendation.uncappedTarget).toEqual(recommendation.target);
    const lower = parseCpuMillicores(recommendation.lowerBound?.cpu ?? 'NaN');
    const upper = parseCpuMillicores(recommendation.upperBound?.cpu ?? 'NaN');
    expect(lower).toBeLessThanOrEqual(587);
    expect(upper).toBeGreaterThanOrEqual(587);
    expect(condition(vpa, 'RecommendationProvided')).toMatchObject({
      status: 'True',
    });
    expect(condition(vpa, 'NoPodsMatched')).toBeUndefined();
    expect(condition(vpa, 'ConfigUnsupported')).toBeUndefined();
    expect(vpa.status?.observedGeneration).toBe(vpa.metadata.generation);
    // The first recommendation is told on the VPA, with its numbers.
    const provided = await waitFor(
      'a RecommendationProvided event on VPA steady',
      async () =>
        (
          await kube.core.listNamespacedEvent({
            namespace,
            fieldSelector:
              'involvedObject.kind=VerticalPodAutoscaler,involvedObject.name=steady,reason=RecommendationProvided',
          })
        ).items[0],
      { timeoutMs: 15_000 },
    );
    expect(provided).toMatchObject({
      type: 'Normal',
      source: { component: 'tandem-recommender' },
      message: 'First recommendation: app: cpu 587m, memory 628694953',
    });

    // Upstream's metric names and labels, so its dashboards and alerts carry over.
    const metrics = await waitFor(
      'the first-recommendation latency in /metrics',
      async () => {
        const { body } = await httpGet(`${recommender.url}/metrics`);
        return /^vpa_recommender_recommendation_latency_seconds_count 1$/m.test(
          body,
        )
          ? body
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    // Upstream 1.8's labels: api v1, and every combination set, zeros included.
    expect(metrics).toMatch(
      /^vpa_recommender_vpa_objects_count\{update_mode="Off",has_recommendation="true",api="v1",matches_pods="true",unsupported_config="false"\} 1$/m,
    );
    expect(metrics).toMatch(
      /^vpa_recommender_vpa_objects_count\{update_mode="Recreate",has_recommendation="false",api="v1beta2",matches_pods="false",unsupported_config="true"\} 0$/m,
    );
  });

  it('keeps its history across a restart through the checkpoint <vpa>-app', async () => {
    // Enough history that a restored aggregate has a non-zero confidence: two CPU samples
    // with different start times (confidence = min(lifespan, samples / 1440) > 0).
    let lastCheckpoint: Checkpoint | undefined;
    const checkpoint = await waitFor(
      `checkpoint ${namespace}/steady-app with samples at two different times`,
      async () => {
        lastCheckpoint = await readCheckpoint('steady-app');
        const status = lastCheckpoint?.status;
        return status?.version === 'v3' &&
          (status.totalSamplesCount ?? 0) >= 2 &&
          status.firstSampleStart !== undefined &&
          status.lastSampleStart !== undefined &&
          Date.parse(status.lastSampleStart) >
            Date.parse(status.firstSampleStart)
          ? lastCheckpoint
          : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
      async () =>
        `${JSON.stringify(lastCheckpoint?.status ?? 'no checkpoint')}; output tail:\n${recommender.tail(15)}`,
    );
    expect(checkpoint.spec).toEqual({
      vpaObjectName: 'steady',
      containerName: 'app',
    });
    const samplesBefore = checkpoint.status?.totalSamplesCount ?? 0;

    expect(await recommender.stop()).toBe(0);
    const stoppedCheckpoint = await readCheckpoint('steady-app');
    const samplesAtStop = stoppedCheckpoint?.status?.totalSamplesCount ?? 0;
    expect(samplesAtStop).toBeGreaterThanOrEqual(samplesBefore);

    // Forget the old status, so the new process's first computation is written and seen
    // (the recommender writes only when the status changes).
    await vpas.clearStatus('steady');
    expect(recommendationFor(await readVpa('steady'))).toBeUndefined();

    recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: TEST_INTERVAL_SECONDS,
    });
    const { recommendation } = await waitForRecommendation(
      'steady',
      'the restarted recommender to write a recommendation',
    );
    // Without history the first cycle has one sample, confidence 0 and an upper bound of
    // 1e14 (100G CPU); with the checkpoint loaded the bound is finite.
    expect(recommendation.upperBound?.cpu).not.toBe(NO_HISTORY_UPPER.cpu);
    expect(recommendation.upperBound?.memory).not.toBe(NO_HISTORY_UPPER.memory);
    expect(recommendation.target).toEqual({
      cpu: '587m',
      memory: '628694953',
    });

    // The new process rewrites the checkpoint from the restored aggregate: the count goes on.
    let rewritten: Checkpoint | undefined;
    await waitFor(
      'the restarted recommender to rewrite checkpoint steady-app',
      async () => {
        rewritten = await readCheckpoint('steady-app');
        return rewritten?.metadata.resourceVersion !==
          stoppedCheckpoint?.metadata.resourceVersion
          ? rewritten
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
      async () => `output tail:\n${recommender.tail(15)}`,
    );
    expect(rewritten?.status?.version).toBe('v3');
    expect(rewritten?.status?.totalSamplesCount).toBeGreaterThanOrEqual(
      samplesAtStop,
    );
    expect(rewritten?.status?.firstSampleStart).toBe(
      stoppedCheckpoint?.status?.firstSampleStart,
    );
  });

  it('leaves alone a VPA that names another recommender', async () => {
    await createVpa('foreign', 'steady', {
      recommenders: [{ name: 'someone-else' }],
    });
    // A VPA created during a cycle may be missed by it: three more "cycle done" lines mean
    // at least two whole cycles listed it.
    await waitForCycles(3);
    const vpa = await readVpa('foreign');
    expect(vpa.status?.recommendation).toBeUndefined();
    expect(vpa.status?.conditions).toBeUndefined();
    expect(await readCheckpoint('foreign-app')).toBeUndefined();
    // The default recommender is alive and still serves this namespace.
    expect(recommendationFor(await readVpa('steady'))).toBeDefined();
  });

  it('lets a recommender started with that name serve it, with its own tuning flags', async () => {
    const named = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: TEST_INTERVAL_SECONDS,
      // Go-style flags, as upstream manifests write them.
      extraArgs: [
        '-recommender-name=someone-else',
        '--recommendation-margin-fraction=0',
        '--memory-saver=false',
      ],
    });
    try {
      const { recommendation } = await vpas.waitForRecommendation(
        'foreign',
        'the recommender named someone-else to recommend',
        { timeoutMs: 60_000, context: () => named.tail(15) },
      );
      // Without the 15 % margin the target is the bucket end itself (golden vectors 15/16).
      expect(recommendation.target).toEqual({
        cpu: '511m',
        memory: '546691264',
      });
    } finally {
      expect(await named.stop()).toBe(0);
    }
  });

  it('marks a VPA whose target does not exist ConfigUnsupported, and still serves the others', async () => {
    await createVpa('orphan', 'does-not-exist');
    await runDeployment(kube, namespace, {
      name: 'valid',
      replicas: 1,
      cpuRequest: '200m',
      memoryRequest: '256Mi',
      initialUsage: { cpu: '200m', memory: '300Mi' },
    });
    await createVpa('valid', 'valid');

    let last: Vpa | undefined;
    const orphan = await waitFor(
      'VPA orphan to get ConfigUnsupported True',
      async () => {
        last = await readVpa('orphan');
        return condition(last, 'ConfigUnsupported')?.status === 'True'
          ? last
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
      observer(() => last),
    );
    expect(condition(orphan, 'ConfigUnsupported')?.message).toEqual(
      expect.any(String),
    );
    expect(recommendationFor(orphan)).toBeUndefined();
    expect(condition(orphan, 'RecommendationProvided')?.status).not.toBe(
      'True',
    );

    const { vpa } = await waitForRecommendation(
      'valid',
      'the valid VPA next to it to get a recommendation',
    );
    expect(condition(vpa, 'RecommendationProvided')?.status).toBe('True');
    expect(condition(vpa, 'ConfigUnsupported')).toBeUndefined();
    // And the orphan stays unsupported.
    expect(
      condition(await readVpa('orphan'), 'ConfigUnsupported')?.status,
    ).toBe('True');
  });

  /** Upstream's OOM rule: max(memory + 100 MiB, 1.2 × memory). */
  const oomBump = (bytes: number) =>
    Math.max(bytes + 104_857_600, Math.trunc(bytes * 1.2));

  /**
   * A one-pod Deployment with a VPA whose memory target is still below `bump`, listed by
   * the recommender (it must know the pod to take an OOM of it); then `oom` happens and
   * the target must reach `bump`. Returns the targets before and after.
   */
  async function memoryTargetAfter(
    name: string,
    memoryRequest: string,
    bump: number,
    oom: (podName: string) => Promise<unknown>,
  ): Promise<{ before: number; after: number }> {
    const [pod] = await runDeployment(kube, namespace, {
      name,
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest,
      initialUsage: { cpu: '100m', memory: '100Mi' },
    });
    await createVpa(name, name);
    const first = await waitForRecommendation(name, 'a first recommendation');
    const before = parseMemoryBytes(
      first.recommendation.target?.memory ?? 'NaN',
    );
    expect(before).toBeLessThan(bump);
    await waitForCycles(1);

    await oom(pod?.metadata?.name ?? '');
    const bumped = await waitForRecommendation(
      name,
      `the memory target to reach the OOM bump ${bump} B`,
      (recommendation) =>
        parseMemoryBytes(recommendation.target?.memory ?? '0') >= bump,
      90_000,
    );
    return {
      before,
      after: parseMemoryBytes(bumped.recommendation.target?.memory ?? 'NaN'),
    };
  }

  it('raises the memory target after an OOM kill to at least the OOM bump of the request', async () => {
    // 373293056 B for the 256 MiB request.
    const bump = oomBump(256 * 1024 * 1024);
    expect(bump).toBe(373_293_056);
    const { before, after } = await memoryTargetAfter(
      'leaky',
      '256Mi',
      bump,
      (podName) => simulateOomKills(kube, namespace, podName, 1),
    );
    expect(after).toBeGreaterThanOrEqual(bump);
    expect(after).toBeGreaterThan(before);
  });

  it('counts a memory eviction event as an OOM at the evicted usage', async () => {
    // The 400 MiB the kubelet reported, bumped (not the 128 MiB request).
    const bump = oomBump(400 * 1024 * 1024);
    const { after } = await memoryTargetAfter(
      'evicted',
      '128Mi',
      bump,
      async (podName) => {
        // The event the kubelet's eviction manager writes when it evicts for memory pressure.
        await kube.core.createNamespacedEvent({
          namespace,
          body: {
            metadata: {
              generateName: `${podName}.`,
              annotations: {
                offending_containers: 'app',
                offending_containers_usage: '400Mi',
                starved_resource: 'memory',
              },
            },
            involvedObject: { kind: 'Pod', namespace, name: podName },
            reason: 'Evicted',
            message: 'The node was low on resource: memory.',
            type: 'Warning',
          },
        });
      },
    );
    expect(after).toBeGreaterThanOrEqual(bump);
  });

  it('skips a corrupt checkpoint at start-up with a log line, a Warning event and a count', async () => {
    await createVpa('corrupt', 'steady');
    await vpas.createCheckpoint(
      'corrupt-app',
      { vpaObjectName: 'corrupt', containerName: 'app' },
      {
        version: 'v3',
        cpuHistogram: { bucketWeights: { '9999': 10000 }, totalWeight: 1 },
      },
    );
    expect(await recommender.stop()).toBe(0);
    recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: TEST_INTERVAL_SECONDS,
    });

    const skipped = await waitFor(
      'the restarted recommender to log that checkpoint corrupt-app was skipped',
      async () =>
        recommender
          .entries()
          .find(
            (entry) =>
              entry.checkpoint === 'corrupt-app' &&
              String(entry.msg).startsWith('checkpoint skipped: '),
          ),
      { timeoutMs: 60_000 },
      async () => `output tail:\n${recommender.tail(15)}`,
    );
    expect(skipped.msg).toContain('bucketWeights["9999"]');
    const event = await waitFor(
      'a CheckpointCorrupt Warning event on VPA corrupt',
      async () =>
        (
          await kube.core.listNamespacedEvent({
            namespace,
            fieldSelector:
              'involvedObject.kind=VerticalPodAutoscaler,involvedObject.name=corrupt,reason=CheckpointCorrupt',
          })
        ).items[0],
      { timeoutMs: 30_000 },
    );
    expect(event.type).toBe('Warning');
    expect(event.message).toMatch(
      /^Checkpoint corrupt-app was skipped and its history not loaded: .*bucketWeights\["9999"\]/,
    );
    const metrics = await httpGet(`${recommender.url}/metrics`);
    expect(metrics.body).toMatch(
      /^tandem_recommender_recovered_errors_total\{kind="checkpoint-load"\} 1$/m,
    );
    // Nothing else is lost: the VPA is served from live usage, the others from their checkpoints.
    await waitForRecommendation(
      'corrupt',
      'VPA corrupt served from live usage',
    );
    expect(recommendationFor(await readVpa('steady'))?.target).toEqual({
      cpu: '587m',
      memory: '628694953',
    });
  });

  it('caps to --container-recommendation-max-allowed-cpu and deletes checkpoints whose VPA is gone', async () => {
    // A checkpoint nobody owns any more (its VPA was deleted), and the foreign VPA's, which
    // must survive: another recommender's history is not ours to delete.
    await vpas.createCheckpoint('deleted-app', {
      vpaObjectName: 'deleted',
      containerName: 'app',
    });
    expect(await recommender.stop()).toBe(0);
    recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: TEST_INTERVAL_SECONDS,
      extraArgs: [
        '--checkpoints-gc-interval=1s',
        '--container-recommendation-max-allowed-cpu=300m',
      ],
    });
    const { recommendation } = await waitForRecommendation(
      'steady',
      'the steady target capped to the global 300m CPU maximum',
      (candidate) => candidate.target?.cpu === '300m',
    );
    expect(recommendation.uncappedTarget?.cpu).toBe('587m');
    await waitFor(
      `the orphaned checkpoint ${namespace}/deleted-app to be deleted`,
      async () =>
        (await readCheckpoint('deleted-app')) === undefined ? true : undefined,
    );
    expect(await readCheckpoint('steady-app')).toBeDefined();
  });

  it('exits 0 on SIGTERM', async () => {
    expect(await recommender.stop()).toBe(0);
    expect(recommender.exitStatus()).toEqual({ code: 0, signal: null });
  });
});
