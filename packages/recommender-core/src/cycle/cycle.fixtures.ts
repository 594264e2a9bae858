import { trace } from '@opentelemetry/api';
import { createLogger } from '@tandem/telemetry';
import type { RecommenderMetrics } from '../recommender-metrics.js';
import type { CycleObservability } from './cycle-context.js';

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
