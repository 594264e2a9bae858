import { trace } from '@opentelemetry/api';
import { DEFAULT_RECOMMENDER_CONFIG } from '@tandem/estimators';
import { createLogger } from '@tandem/telemetry';
import type { RecommenderMetrics } from '../recommender-metrics.js';
import type { CycleObservability, CycleSettings } from './cycle-context.js';

/** Shared builders for the cycle's tests. */

/** The flags' defaults (upstream's), with what a test changes. */
export function testSettings(
  overrides: Partial<CycleSettings> = {},
): CycleSettings {
  return {
    selection: { recommenderName: 'default' },
    recommenderConfig: DEFAULT_RECOMMENDER_CONFIG,
    recommendationFormat: {},
    globalMaxAllowed: {},
    integerCpuPostProcessor: false,
    namespace: undefined,
    checkpointsEnabled: true,
    checkpointsGcIntervalMs: 10 * 60_000,
    checkpointsTimeoutMs: 60_000,
    updateWorkers: 10,
    model: {},
    qualityMetrics: false,
    ...overrides,
  };
}

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
