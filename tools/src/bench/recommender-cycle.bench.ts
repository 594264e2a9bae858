import type { V1Node } from '@kubernetes/client-node';
import { ClusterModel, recommenderMetrics } from '@tandem/recommender-core';
import { Registry } from '@tandem/telemetry';
import { seededRandom } from '@tandem/estimators';
import { cycleTimer, inMemoryCycleContext } from './in-memory-cycle.js';
import { heapUsedAfterGc, medianOfRuns } from './measure.js';
import type { Figure } from './report.js';
import { syntheticCluster } from './synthetic-cluster.js';

const WORKLOADS = 10_000;
const WORKLOADS_PER_NAMESPACE = 100;
/** Cycles after the cold one: enough for every status and checkpoint to settle. */
const WARM_UP_CYCLES = 3;
const MEASURED_CYCLES = 9;
const MIB = 2 ** 20;

/**
 * One recommender cycle (`runCycle`, as main.ts runs it) over 10,000 VPAs and 50,000
 * containers, all I/O in memory: CPU time of the first (cold) cycle and the median of
 * steady-state ones, then the heap retained once the model holds every aggregate; last,
 * the steady state again with the `vpa_quality_*` metrics turned on (`--quality-metrics`),
 * on the same model, for what they cost.
 */
export async function recommenderCycleFigures(): Promise<Figure[]> {
  const random = seededRandom(3);
  const cluster = syntheticCluster(WORKLOADS, WORKLOADS_PER_NAMESPACE, random);
  const startMs = Date.UTC(2026, 0, 1);
  const context = inMemoryCycleContext(cluster, startMs);
  const timedCycle = cycleTimer(context, cluster, startMs, random);

  const coldMs = await timedCycle();
  for (let i = 0; i < WARM_UP_CYCLES; i += 1) await timedCycle();
  const steadyMs = await medianOfRuns(MEASURED_CYCLES, timedCycle);
  const totalHeap = heapUsedAfterGc();

  // The first cycles with quality metrics count samples as missing a recommendation (there
  // is none yet) and take the recommendations in; the warm-up passes them.
  const qualityRegistry = new Registry();
  context.settings.qualityMetrics = true;
  context.observability.metrics = recommenderMetrics(qualityRegistry, {
    quality: true,
  });
  for (let i = 0; i < WARM_UP_CYCLES; i += 1) await timedCycle();
  const qualityMs = await medianOfRuns(MEASURED_CYCLES, timedCycle);
  const perSample = await qualityRegistry
    .getSingleMetric('vpa_quality_usage_recommendation_relative_diffs')
    ?.get();
  if ((perSample?.values.length ?? 0) === 0)
    throw new Error('quality metrics on, yet no sample was compared');
  context.settings.qualityMetrics = false;
  context.state.qualityLinks = new Map();

  // --cap-recommendation-at-largest-node over 1,000 nodes: the largest found each cycle and
  // every VPA's pod checked against it (none is past 8 cores and 32 GiB here, so the statuses
  // stay as they are and the figure is the rail's own cost).
  const nodes: V1Node[] = Array.from({ length: 1_000 }, (_, index) => ({
    metadata: { name: `node-${index}` },
    status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
  }));
  context.settings.capAtLargestNode = true;
  context.inputs.listNodes = () => nodes;
  for (let i = 0; i < WARM_UP_CYCLES; i += 1) await timedCycle();
  const nodeCapMs = await medianOfRuns(MEASURED_CYCLES, timedCycle);
  context.settings.capAtLargestNode = false;

  const withModelHeap = heapUsedAfterGc();
  context.state.model = new ClusterModel();
  const modelHeap = withModelHeap - heapUsedAfterGc();

  const scale = `${WORKLOADS.toLocaleString('en-US')} VPAs, ${cluster.profiles.length.toLocaleString('en-US')} containers`;
  return [
    {
      name: `recommender cycle CPU, steady state (${scale})`,
      ...steadyMs,
      unit: 'ms',
      target: { comparison: '<=', value: 1000 },
    },
    {
      name: 'recommender cycle CPU, first cycle (every status and checkpoint written)',
      value: coldMs,
      unit: 'ms',
      target: { comparison: '<=', value: 1000 },
    },
    {
      name: 'recommender cycle CPU, steady state, with vpa_quality_* on (--quality-metrics)',
      ...qualityMs,
      unit: 'ms',
      target: { comparison: '<=', value: 1000 },
    },
    {
      name: 'cost of vpa_quality_* a cycle (CPU with them on − without)',
      value: qualityMs.value - steadyMs.value,
      unit: 'ms',
      target: undefined,
    },
    {
      name: 'recommender cycle CPU, steady state, with --cap-recommendation-at-largest-node (1,000 nodes)',
      ...nodeCapMs,
      unit: 'ms',
      target: { comparison: '<=', value: 1000 },
    },
    {
      name: 'heap after GC, whole bench process (model, pods, VPAs, checkpoints, code)',
      value: totalHeap / MIB,
      unit: 'MiB',
      target: { comparison: '<=', value: 300 },
    },
    {
      name: 'heap retained by the model alone',
      value: modelHeap / MIB,
      unit: 'MiB',
      target: undefined,
    },
  ];
}
