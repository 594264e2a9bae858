const HOUR_MS = 3600_000;

/** Knobs of the usage model (recommender flags of the same names, in milliseconds). */
export interface AggregationConfig {
  /** One memory peak is kept per interval (`--memory-aggregation-interval`). */
  readonly memoryAggregationIntervalMs: number;
  /** History spans this many intervals before an idle aggregate expires (`--memory-aggregation-interval-count`). */
  readonly memoryAggregationIntervalCount: number;
  readonly cpuHistogramDecayHalfLifeMs: number;
  readonly memoryHistogramDecayHalfLifeMs: number;
  /** After an OOM kill, memory is raised to at least this multiple of what was used. */
  readonly oomBumpUpRatio: number;
  /** ...and by at least this many bytes (100 MiB). */
  readonly oomMinBumpUpBytes: number;
}

export const DEFAULT_AGGREGATION_CONFIG: AggregationConfig = Object.freeze({
  memoryAggregationIntervalMs: 24 * HOUR_MS,
  memoryAggregationIntervalCount: 8,
  cpuHistogramDecayHalfLifeMs: 24 * HOUR_MS,
  memoryHistogramDecayHalfLifeMs: 24 * HOUR_MS,
  oomBumpUpRatio: 1.2,
  oomMinBumpUpBytes: 100 * 1024 * 1024,
});

/**
 * Throws a RangeError naming the first unusable setting. Every new aggregate checks its
 * config (20,000 on a recommender's first cycle at 10,000 VPAs): one call per setting
 * rather than a loop over a list of keys made per call, which cold code walked through an
 * iterator.
 */
export function requireValidAggregationConfig(config: AggregationConfig): void {
  requirePositive(config, 'memoryAggregationIntervalMs');
  requirePositive(config, 'cpuHistogramDecayHalfLifeMs');
  requirePositive(config, 'memoryHistogramDecayHalfLifeMs');
  requirePositive(config, 'oomBumpUpRatio');
  if (
    !(
      Number.isSafeInteger(config.memoryAggregationIntervalCount) &&
      config.memoryAggregationIntervalCount > 0
    )
  ) {
    throw new RangeError(
      `memoryAggregationIntervalCount must be a positive integer, got ${config.memoryAggregationIntervalCount}`,
    );
  }
  if (
    !(
      Number.isFinite(config.oomMinBumpUpBytes) && config.oomMinBumpUpBytes >= 0
    )
  ) {
    throw new RangeError(
      `oomMinBumpUpBytes must be a finite number >= 0, got ${config.oomMinBumpUpBytes}`,
    );
  }
}

function requirePositive(
  config: AggregationConfig,
  key: keyof AggregationConfig,
): void {
  if (!(Number.isFinite(config[key]) && config[key] > 0)) {
    throw new RangeError(
      `${key} must be a finite number > 0, got ${config[key]}`,
    );
  }
}
