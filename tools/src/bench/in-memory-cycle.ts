import { trace } from '@opentelemetry/api';
import {
  type CycleContext,
  type CycleSettings,
  defaultCycleSettings,
  freshCycleState,
  inMemoryVpaStore,
  type InMemoryVpaStore,
  objectKey,
  recommenderMetrics,
  runCycle,
  type VpaStore,
} from '@tandem/recommender-core';
import { createLogger, Registry } from '@tandem/telemetry';
import { cpuMs } from './measure.js';
import {
  type SyntheticCluster,
  usageSnapshot,
  workloadSelector,
} from './synthetic-cluster.js';

/** upstream's default --recommender-interval */
const INTERVAL_MS = 60_000;

/** The API server's side: writes land in it, and VPAs are listed from it. */
type ListingStore = VpaStore & Pick<InMemoryVpaStore, 'listVpas'>;

/**
 * main.ts's wiring with the API server, metrics API, tracer and logger replaced by inert
 * ones; `settings` are the flags (upstream's defaults unless given), `store` the API
 * server's VPAs and checkpoints (by default one that keeps what it is given).
 */
export function inMemoryCycleContext(
  cluster: SyntheticCluster,
  startMs: number,
  settings: CycleSettings = defaultCycleSettings(),
  store: ListingStore = inMemoryVpaStore(cluster.vpas),
): CycleContext {
  return {
    settings,
    inputs: {
      listVpas: store.listVpas,
      listPods: () => cluster.pods,
      allVpaKeys: () =>
        new Set(
          store
            .listVpas()
            .map((vpa) =>
              objectKey(
                vpa.metadata?.namespace ?? '',
                vpa.metadata?.name ?? '',
              ),
            ),
        ),
      resolveTarget: async (vpa) => workloadSelector(vpa),
      loadMetrics: async () => ({ usages: [], skipped: 0 }),
      takeOoms: () => [],
      clock: Date.now,
      stillLeading: () => true,
    },
    store,
    observability: {
      // Without a registered SDK the OpenTelemetry API hands out a no-op tracer.
      tracer: trace.getTracer('bench'),
      logger: createLogger({
        serviceName: 'bench',
        serviceVersion: '0',
        env: { LOG_LEVEL: 'silent' },
      }),
      metrics: recommenderMetrics(new Registry()),
    },
    state: freshCycleState(settings, startMs),
  };
}

/** A store that keeps statuses but drops checkpoints: the API server, not the recommender, holds those. */
export function checkpointDroppingStore(store: ListingStore): ListingStore {
  return { ...store, writeCheckpoint: () => Promise.resolve() };
}

/**
 * Runs one cycle a call, a minute apart, each with a fresh metrics snapshot (built before
 * the clock starts: in production it is the API response, parsed outside the cycle's own
 * work); returns its CPU time in ms. A cycle that reports an error throws.
 */
export function cycleTimer(
  context: CycleContext,
  cluster: SyntheticCluster,
  startMs: number,
  random: () => number,
): () => Promise<number> {
  let nowMs = startMs;
  return async () => {
    const usages = usageSnapshot(cluster, nowMs, random);
    context.inputs.loadMetrics = async () => ({ usages, skipped: 0 });
    const { ms, value: summary } = await cpuMs(() => runCycle(context, nowMs));
    if (summary.errors > 0)
      throw new Error(`cycle failed: ${JSON.stringify(summary)}`);
    nowMs += INTERVAL_MS;
    return ms;
  };
}
