import { trace } from '@opentelemetry/api';
import { createLogger } from '@tandem/telemetry';
import type { V1Pod } from '@kubernetes/client-node';
import type { PodContainerUsage } from '@tandem/kube';
import type { InMemoryVpaStore } from '../checkpoints/in-memory-vpa-store.js';
import { NS } from '../model/model.fixtures.js';
import type { ObservedOom } from '../model/index.js';
import type { RecommenderMetrics } from '../recommender-metrics.js';
import type { CycleInputs, CycleObservability } from './cycle-context.js';

/** Shared builders for the cycle's tests. */

/** The OpenTelemetry API's no-op tracer (no SDK registered) and a silent logger. */
export function quietObservability(
  metrics: RecommenderMetrics,
): CycleObservability {
  return {
    tracer: trace.getTracer('test'),
    logger: createLogger({
      serviceName: 'test',
      serviceVersion: '0',
      env: { LOG_LEVEL: 'silent' },
    }),
    metrics,
  };
}

/**
 * The inputs of one VPA `web` in {@link NS} whose target selects `selector`: VPAs from
 * `store`, `pods` as listed, `usages` as metrics, `ooms` drained each cycle.
 */
export function oneVpaInputs(options: {
  store: InMemoryVpaStore;
  pods: () => V1Pod[];
  selector: Record<string, string>;
  usages: () => PodContainerUsage[];
  ooms: ObservedOom[];
  clock: () => number;
}): CycleInputs {
  return {
    listVpas: options.store.listVpas,
    listPods: options.pods,
    allVpaKeys: () => new Set([`${NS}/web`]),
    resolveTarget: async () => ({
      selector: { matchLabels: options.selector },
    }),
    loadMetrics: async () => ({ usages: options.usages(), skipped: 0 }),
    takeOoms: () => options.ooms.splice(0),
    clock: options.clock,
    stillLeading: () => true,
  };
}
