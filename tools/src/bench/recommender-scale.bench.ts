import {
  ClusterModel,
  type CycleSettings,
  defaultCycleSettings,
  inMemoryVpaStore,
} from '@tandem/recommender-core';
import { seededRandom } from '@tandem/estimators';
import {
  checkpointDroppingStore,
  cycleTimer,
  inMemoryCycleContext,
} from './in-memory-cycle.js';
import { heapUsedAfterGc, medianOfRuns } from './measure.js';
import type { Figure, Measured } from './report.js';
import {
  type SyntheticCluster,
  syntheticCluster,
} from './synthetic-cluster.js';

/** Ten times the recommender-cycle bench: issue 25's scale. */
const WORKLOADS = 100_000;
const WORKLOADS_PER_NAMESPACE = 100;
/** Replicas splitting the VPAs by `spec.recommenders` in the sharded figure. */
const SHARDS = 2;
/** After the cold cycle: the next one still writes every status and rebuilds after GC. */
const WARM_UP_CYCLES = 1;
const MEASURED_CYCLES = 3;
const MIB = 2 ** 20;

interface ReplicaFigures {
  coldMs: number;
  steady: Measured;
  /** Heap after GC with the model built, the whole process (listed pods and VPAs included). */
  heapBytes: number;
  /** What dropping the model frees. */
  modelBytes: number;
}

/**
 * The recommender cycle at 100,000 VPAs / 500,000 containers in memory (the cluster of
 * the recommender-cycle bench, ten times over), on one replica; then the same cluster split
 * across two replicas the upstream way, each VPA naming one in `spec.recommenders`, and
 * one replica measured with `--recommender-name` and `--memory-saver` (it tracks only the
 * pods its VPAs select, though it still lists every pod and receives every sample).
 * Checkpoints are written and dropped: the API server keeps them, not the recommender.
 */
export async function recommenderScaleFigures(): Promise<Figure[]> {
  const random = seededRandom(5);
  const cluster = syntheticCluster(WORKLOADS, WORKLOADS_PER_NAMESPACE, random);
  const whole = await replicaFigures(cluster, random, defaultCycleSettings());
  const shard = await replicaFigures(
    {
      ...cluster,
      vpas: cluster.vpas.map((vpa, index) => ({
        ...vpa,
        spec: { ...vpa.spec, recommenders: [{ name: shardName(index) }] },
      })),
    },
    random,
    defaultCycleSettings({
      selection: { recommenderName: shardName(0) },
      model: { memorySaver: true },
    }),
  );

  const scale = `${WORKLOADS.toLocaleString('en-US')} VPAs, ${cluster.profiles.length.toLocaleString('en-US')} containers`;
  const ofShards = `one of ${SHARDS} replicas split by spec.recommenders, --memory-saver`;
  return [
    {
      name: `recommender cycle CPU at scale, steady state (${scale})`,
      ...whole.steady,
      unit: 'ms',
      target: { comparison: '<=', value: 5000 },
    },
    {
      name: 'recommender cycle CPU at scale, first cycle',
      value: whole.coldMs,
      unit: 'ms',
      target: undefined,
    },
    {
      name: 'heap after GC at scale, whole bench process (model, listed pods and VPAs, code)',
      value: whole.heapBytes / MIB,
      unit: 'MiB',
      target: { comparison: '<=', value: 1536 },
    },
    {
      name: 'heap retained by the model alone at scale',
      value: whole.modelBytes / MIB,
      unit: 'MiB',
      target: undefined,
    },
    {
      name: `recommender cycle CPU at scale, steady state, ${ofShards}`,
      ...shard.steady,
      unit: 'ms',
      target: undefined,
    },
    {
      name: `heap retained by the model alone at scale, ${ofShards}`,
      value: shard.modelBytes / MIB,
      unit: 'MiB',
      target: undefined,
    },
  ];
}

function shardName(index: number): string {
  return `shard-${index % SHARDS}`;
}

async function replicaFigures(
  cluster: SyntheticCluster,
  random: () => number,
  settings: CycleSettings,
): Promise<ReplicaFigures> {
  const startMs = Date.UTC(2026, 0, 1);
  const context = inMemoryCycleContext(
    cluster,
    startMs,
    settings,
    checkpointDroppingStore(inMemoryVpaStore(cluster.vpas)),
  );
  const timedCycle = cycleTimer(context, cluster, startMs, random);
  const coldMs = await timedCycle();
  for (let i = 0; i < WARM_UP_CYCLES; i += 1) await timedCycle();
  const steady = await medianOfRuns(MEASURED_CYCLES, timedCycle);
  const heapBytes = heapUsedAfterGc();
  context.state.model = new ClusterModel();
  return {
    coldMs,
    steady,
    heapBytes,
    modelBytes: heapBytes - heapUsedAfterGc(),
  };
}
