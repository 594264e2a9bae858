import type { V1Pod } from '@kubernetes/client-node';
import type { PodContainerUsage } from '@tandem/kube';
import { Registry } from '@tandem/telemetry';
import {
  parseCpuMillicores,
  parseMemoryBytes,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { inMemoryVpaStore } from '../checkpoints/in-memory-vpa-store.js';
import type { ObservedOom } from '../model/index.js';
import { MIB, NS, vpaObject } from '../model/model.fixtures.js';
import { recommenderMetrics } from '../recommender-metrics.js';
import {
  type CycleContext,
  defaultCycleSettings,
  freshCycleState,
} from './cycle-context.js';
import { quietObservability } from './cycle.fixtures.js';
import { runCycle } from './cycle.js';
import { vpaSizeLog2 } from './quality.js';

const START_MS = Date.parse('2026-11-25T00:00:00Z');
const SELECTED = { app: 'web' };

/** Usage of every container of the pods, one sample a resource. */
interface Usage {
  cpuMillicores: number;
  memoryBytes: number;
}

/** The cycle over `vpa` and running pods `podNames` (containers `app`, `sidecar`), all in memory. */
function cycles(options: {
  quality: boolean;
  vpa?: VerticalPodAutoscaler;
  podNames?: string[];
}) {
  const podNames = options.podNames ?? ['web-1'];
  const store = inMemoryVpaStore([options.vpa ?? vpaObject('web')]);
  const registry = new Registry();
  const pods: V1Pod[] = podNames.map((name) => ({
    metadata: { namespace: NS, name, labels: SELECTED },
    spec: { containers: [{ name: 'app' }, { name: 'sidecar' }] },
    status: { phase: 'Running' },
  }));
  let nowMs = START_MS;
  let usage: Usage = { cpuMillicores: 0, memoryBytes: 0 };
  const ooms: ObservedOom[] = [];
  const context: CycleContext = {
    settings: defaultCycleSettings({
      checkpointsEnabled: false,
      qualityMetrics: options.quality,
    }),
    inputs: {
      listVpas: store.listVpas,
      listPods: () => pods,
      allVpaKeys: () => new Set([`${NS}/web`]),
      resolveTarget: async () => ({ selector: { matchLabels: SELECTED } }),
      loadMetrics: async () => ({
        usages: pods.flatMap((pod) =>
          ['app', 'sidecar'].map(
            (container): PodContainerUsage => ({
              namespace: NS,
              pod: pod.metadata?.name ?? '',
              container,
              timeMs: nowMs,
              ...usage,
            }),
          ),
        ),
        skipped: 0,
      }),
      takeOoms: () => ooms.splice(0),
      clock: () => nowMs,
      stillLeading: () => true,
    },
    store,
    observability: quietObservability(
      recommenderMetrics(registry, { quality: options.quality }),
    ),
    state: freshCycleState({ model: {} }, START_MS),
  };
  return {
    registry,
    context,
    /** One cycle, a minute after the previous one, with these samples. */
    async run(next: Usage) {
      usage = next;
      nowMs += 60_000;
      const summary = await runCycle(context, nowMs);
      expect(summary.errors).toBe(0);
    },
    /** An OOM kill of `pod`'s `app`, taken by the next cycle (at its time). */
    oomKill(pod: string) {
      ooms.push({
        namespace: NS,
        podName: pod,
        containerName: 'app',
        timeMs: nowMs + 60_000,
        // The pods declare no memory request.
        memoryBytes: 0,
      });
    },
    /** The uncapped target of `app` the last cycle wrote: millicores and bytes. */
    appTarget() {
      const target = store
        .listVpas()[0]
        ?.status?.recommendation?.containerRecommendations?.find(
          (recommendation) => recommendation.containerName === 'app',
        )?.uncappedTarget;
      if (target?.['cpu'] === undefined || target['memory'] === undefined)
        throw new Error('no recommendation written for app');
      return {
        millicores: parseCpuMillicores(target['cpu']),
        bytes: parseMemoryBytes(target['memory']),
      };
    },
  };
}

/**
 * One labelled series of a histogram: its count, sum and the bucket (`le`) of its smallest
 * observation; count 0 when the series does not exist.
 */
async function series(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
) {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const all: {
    labels: Partial<Record<string, string | number>>;
    value: number;
    metricName?: string;
  }[] = (await metric.get()).values;
  const values = all.filter((value) =>
    Object.entries(labels).every(([key, text]) => value.labels[key] === text),
  );
  const named = (suffix: string) =>
    values.filter((value) => value.metricName === `${name}${suffix}`);
  const buckets = named('_bucket');
  const smallest = buckets.find((bucket) => bucket.value > 0);
  return {
    count: named('_count')[0]?.value ?? 0,
    sum: named('_sum')[0]?.value ?? 0,
    le: smallest === undefined ? undefined : String(smallest.labels['le']),
    bounds: buckets.map((bucket) => String(bucket.labels['le'])),
  };
}

async function counterValue(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  return (
    (await metric.get()).values.find((value) =>
      Object.entries(labels).every(([key, text]) => value.labels[key] === text),
    )?.value ?? 0
  );
}

const QUALITY = 'vpa_quality_';
const NOT_OOM = { is_oom: 'false' };

describe('vpa_quality_* metrics', () => {
  it('are not registered, and nothing is observed, unless turned on', async () => {
    const off = cycles({ quality: false });
    await off.run({ cpuMillicores: 300, memoryBytes: 300 * MIB });
    await off.run({ cpuMillicores: 300, memoryBytes: 300 * MIB });
    expect(off.context.observability.metrics.quality).toBeUndefined();
    expect(off.context.state.qualityLinks.size).toBe(0);
    const names = (await off.registry.getMetricsAsJSON()).map(
      (metric) => metric.name,
    );
    expect(names.filter((name) => name.startsWith(QUALITY))).toEqual([]);
    expect(names).toContain('vpa_recommender_execution_latency_seconds');
  });

  it("registers upstream's nine, with upstream's buckets", async () => {
    const { registry } = cycles({ quality: true });
    const names = (await registry.getMetricsAsJSON())
      .map((metric) => metric.name)
      .filter((name) => name.startsWith(QUALITY));
    expect(names.sort()).toEqual(
      [
        'vpa_quality_cpu_recommendation_lower_equal_usage_diffs_cores',
        'vpa_quality_cpu_recommendation_over_usage_diffs_cores',
        'vpa_quality_cpu_recommendations_cores',
        'vpa_quality_mem_recommendation_lower_equal_usage_diffs_bytes',
        'vpa_quality_mem_recommendation_over_usage_diffs_bytes',
        'vpa_quality_mem_recommendations_bytes',
        'vpa_quality_relative_recommendation_changes',
        'vpa_quality_usage_recommendation_relative_diffs',
        'vpa_quality_usage_sample_missing_recommendation_count',
      ].sort(),
    );
    // A series shows its buckets: observe samples without a recommendation.
    const quality = cycles({ quality: true });
    await quality.run({ cpuMillicores: 1, memoryBytes: 1 });
    const { bounds: cpu } = await series(
      quality.registry,
      'vpa_quality_cpu_recommendation_lower_equal_usage_diffs_cores',
      { update_mode: '', recommendation_missing: 'true' },
    );
    expect(cpu).toHaveLength(18);
    expect(cpu.slice(0, 3)).toEqual(['0.01', '0.02', '0.04']);
    expect(cpu.slice(-2)).toEqual(['655.36', '+Inf']);
    const { bounds: memory } = await series(
      quality.registry,
      'vpa_quality_mem_recommendation_lower_equal_usage_diffs_bytes',
      { update_mode: '', recommendation_missing: 'true', ...NOT_OOM },
    );
    expect(memory).toHaveLength(18);
    expect(memory.slice(0, 2)).toEqual(['1000000', '2000000']);
    expect(memory.slice(-2)).toEqual(['65536000000', '+Inf']);
  });

  it('counts samples before the first recommendation as missing it', async () => {
    const { registry, run } = cycles({ quality: true });
    await run({ cpuMillicores: 300, memoryBytes: 300 * MIB });
    for (const resource of ['cpu', 'memory'])
      expect(
        await counterValue(
          registry,
          'vpa_quality_usage_sample_missing_recommendation_count',
          { update_mode: '', resource, ...NOT_OOM },
        ),
      ).toBe(2); // app and sidecar
    // The usage, against a recommendation of 0, is a "lower or equal" difference.
    expect(
      await series(
        registry,
        'vpa_quality_cpu_recommendation_lower_equal_usage_diffs_cores',
        { update_mode: '', recommendation_missing: 'true' },
      ),
    ).toMatchObject({ count: 2, sum: 0.6, le: '0.32' });
    expect(
      await series(
        registry,
        'vpa_quality_mem_recommendation_lower_equal_usage_diffs_bytes',
        { update_mode: '', recommendation_missing: 'true', ...NOT_OOM },
      ),
    ).toMatchObject({ count: 2, sum: 600 * MIB, le: '512000000' });
    expect(
      (
        await series(registry, 'vpa_quality_cpu_recommendations_cores', {
          update_mode: '',
        })
      ).count,
    ).toBe(0);
  });

  it('compares a sample above its recommendation (lower_equal) and one below it (over), by update mode', async () => {
    const vpa = vpaObject('web');
    vpa.spec.updatePolicy = { updateMode: 'InPlaceOrRecreate' };
    const { registry, run, appTarget } = cycles({ quality: true, vpa });
    await run({ cpuMillicores: 300, memoryBytes: 300 * MIB });
    const target = appTarget();
    // The first cycle's recommendation (upstream's default estimators, one sample of each),
    // for the samples of the next one.
    expect(target).toEqual({ millicores: 350, bytes: 380_258_472 });
    const mode = { update_mode: 'InPlaceOrRecreate' };

    // 2 cores and 4 GiB: above the recommendation.
    await run({ cpuMillicores: 2000, memoryBytes: 4096 * MIB });
    const cores = target.millicores / 1000;
    const cpuAbove = await series(
      registry,
      'vpa_quality_cpu_recommendation_lower_equal_usage_diffs_cores',
      { ...mode, recommendation_missing: 'false' },
    );
    expect(cpuAbove.count).toBe(2);
    expect(cpuAbove.sum).toBe(2 * (2 - cores));
    expect(cpuAbove.le).toBe('2.56');
    const memoryAbove = await series(
      registry,
      'vpa_quality_mem_recommendation_lower_equal_usage_diffs_bytes',
      { ...mode, recommendation_missing: 'false', ...NOT_OOM },
    );
    expect(memoryAbove).toMatchObject({
      count: 2,
      sum: 2 * (4096 * MIB - target.bytes),
      le: '4096000000',
    });
    const cpuRelative = await series(
      registry,
      'vpa_quality_usage_recommendation_relative_diffs',
      { ...mode, resource: 'cpu', ...NOT_OOM },
    );
    expect(cpuRelative.count).toBe(2);
    expect(cpuRelative.sum).toBe(2 * ((2 - cores) / cores));
    expect(cpuRelative.le).toBe('5');
    expect(
      await series(registry, 'vpa_quality_cpu_recommendations_cores', mode),
    ).toMatchObject({ count: 2, sum: 2 * cores, le: '0.64' });
    expect(
      await series(registry, 'vpa_quality_mem_recommendations_bytes', {
        ...mode,
        ...NOT_OOM,
      }),
    ).toMatchObject({ count: 2, sum: 2 * target.bytes, le: '512000000' });

    // 100m and 100 MiB against the second cycle's recommendation: below it.
    const second = appTarget();
    await run({ cpuMillicores: 100, memoryBytes: 100 * MIB });
    const cpuBelow = await series(
      registry,
      'vpa_quality_cpu_recommendation_over_usage_diffs_cores',
      { ...mode, recommendation_missing: 'false' },
    );
    expect(cpuBelow.count).toBe(2);
    expect(cpuBelow.sum).toBe(2 * (second.millicores / 1000 - 0.1));
    const memoryBelow = await series(
      registry,
      'vpa_quality_mem_recommendation_over_usage_diffs_bytes',
      { ...mode, recommendation_missing: 'false', ...NOT_OOM },
    );
    expect(memoryBelow.count).toBe(2);
    expect(memoryBelow.sum).toBe(2 * (second.bytes - 100 * MIB));
    const memoryRelative = await series(
      registry,
      'vpa_quality_usage_recommendation_relative_diffs',
      { ...mode, resource: 'memory', ...NOT_OOM },
    );
    // One cycle above (×10 or so), one below (between -100 % and -75 %).
    expect(memoryRelative.count).toBe(4);
    expect(memoryRelative.le).toBe('-0.75');
    // Nothing was missing after the first cycle.
    expect(
      await counterValue(
        registry,
        'vpa_quality_usage_sample_missing_recommendation_count',
        { ...mode, resource: 'cpu', ...NOT_OOM },
      ),
    ).toBe(2);
  });

  it('files an OOM kill\'s bumped-up memory sample in the is_oom="true" series, as upstream\'s RecordOOM does', async () => {
    const { registry, run, appTarget, oomKill } = cycles({ quality: true });
    await run({ cpuMillicores: 300, memoryBytes: 300 * MIB });
    const target = appTarget();
    oomKill('web-1');
    await run({ cpuMillicores: 300, memoryBytes: 300 * MIB });
    // Upstream's bump: max(used + 100 MiB, used × 1.2), used = max(request 0, peak 300 MiB).
    const filed = Math.max(300 * MIB + 100 * MIB, 300 * MIB * 1.2);
    const oom = { update_mode: '', is_oom: 'true' };
    expect(
      await series(
        registry,
        'vpa_quality_mem_recommendation_lower_equal_usage_diffs_bytes',
        { ...oom, recommendation_missing: 'false' },
      ),
    ).toMatchObject({ count: 1, sum: filed - target.bytes });
    expect(
      await series(registry, 'vpa_quality_mem_recommendations_bytes', oom),
    ).toMatchObject({ count: 1, sum: target.bytes });
    // The regular samples of that cycle stay in the is_oom="false" series.
    expect(
      await series(registry, 'vpa_quality_mem_recommendations_bytes', {
        update_mode: '',
        ...NOT_OOM,
      }),
    ).toMatchObject({ count: 2 });
  });

  it('observes each recommendation against the previous one, with the VPA size as vpa_size_log2', async () => {
    const { registry, run, appTarget } = cycles({
      quality: true,
      podNames: ['web-1', 'web-2', 'web-3'],
    });
    await run({ cpuMillicores: 300, memoryBytes: 300 * MIB });
    const first = appTarget();
    const change = (resource: string) =>
      series(registry, 'vpa_quality_relative_recommendation_changes', {
        update_mode: '',
        resource,
        vpa_size_log2: '1', // 3 pods
      });
    // The first recommendation has nothing to compare with.
    expect((await change('cpu')).count).toBe(0);

    await run({ cpuMillicores: 3000, memoryBytes: 3000 * MIB });
    const second = appTarget();
    expect(second.millicores).toBeGreaterThan(first.millicores);
    // app and sidecar: one aggregate each.
    const cpu = await change('cpu');
    expect(cpu.count).toBe(2);
    expect(cpu.sum).toBe(2 * (second.millicores / first.millicores - 1));
    const memory = await change('memory');
    expect(memory.count).toBe(2);
    expect(memory.sum).toBe(2 * (second.bytes / first.bytes - 1));
  });

  it('leaves out containers whose scaling mode is Off', async () => {
    const vpa = vpaObject('web', {
      policies: [{ containerName: 'sidecar', mode: 'Off' }],
    });
    const { registry, run } = cycles({ quality: true, vpa });
    await run({ cpuMillicores: 300, memoryBytes: 300 * MIB });
    expect(
      await counterValue(
        registry,
        'vpa_quality_usage_sample_missing_recommendation_count',
        { update_mode: '', resource: 'cpu', ...NOT_OOM },
      ),
    ).toBe(1);
  });

  it('refuses to run when turned on without the metrics to observe', async () => {
    const { context } = cycles({ quality: true });
    context.observability.metrics = recommenderMetrics(new Registry());
    await expect(runCycle(context, START_MS)).rejects.toThrow(
      /recommenderMetrics\(registry, \{ quality: true \}\)/,
    );
  });

  it('buckets the VPA size as upstream: log2 of the pod count, at most 20', () => {
    expect(
      [0, 1, 2, 3, 4, 1023, 1024, 2 ** 20, 2 ** 30].map(vpaSizeLog2),
    ).toEqual([0, 0, 1, 1, 2, 9, 10, 20, 20]);
  });
});
