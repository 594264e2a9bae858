const DAY_MS = 24 * 3600_000;

/** Knobs of the recommendation (recommender flags of the same names; intervals in ms). */
export interface RecommenderConfig {
  readonly targetCpuPercentile: number;
  readonly lowerBoundCpuPercentile: number;
  readonly upperBoundCpuPercentile: number;
  readonly targetMemoryPercentile: number;
  readonly lowerBoundMemoryPercentile: number;
  readonly upperBoundMemoryPercentile: number;
  /** Safety margin added to every estimate (`--recommendation-margin-fraction`). */
  readonly recommendationMarginFraction: number;
  /**
   * CPU's own margin, in place of `recommendationMarginFraction` for CPU (Tandem's, for the
   * `tandem` strategy; upstream has one margin for both resources).
   */
  readonly cpuRecommendationMarginFraction?: number;
  /** Per-pod minimum, split evenly over the pod's containers. */
  readonly podMinCpuMillicores: number;
  /** Per-pod minimum in MiB (the flag says MB, upstream multiplies by 1024 * 1024). */
  readonly podMinMemoryMb: number;
  /** History that counts as one unit of confidence for the CPU bounds. */
  readonly confidenceIntervalCpuMs: number;
  readonly confidenceIntervalMemoryMs: number;
}

export const DEFAULT_RECOMMENDER_CONFIG: RecommenderConfig = Object.freeze({
  targetCpuPercentile: 0.9,
  lowerBoundCpuPercentile: 0.5,
  upperBoundCpuPercentile: 0.95,
  targetMemoryPercentile: 0.9,
  lowerBoundMemoryPercentile: 0.5,
  upperBoundMemoryPercentile: 0.95,
  recommendationMarginFraction: 0.15,
  podMinCpuMillicores: 25,
  podMinMemoryMb: 250,
  confidenceIntervalCpuMs: DAY_MS,
  confidenceIntervalMemoryMs: DAY_MS,
});

/** Throws a RangeError naming the first unusable setting. */
export function requireValidRecommenderConfig(config: RecommenderConfig): void {
  for (const [key, value] of Object.entries(config) as [
    keyof RecommenderConfig,
    number | undefined,
  ][]) {
    if (value === undefined && key === 'cpuRecommendationMarginFraction')
      continue;
    const mustBePositive = key.startsWith('confidenceInterval');
    if (
      value === undefined ||
      !Number.isFinite(value) ||
      (mustBePositive ? value <= 0 : value < 0)
    ) {
      throw new RangeError(
        `${key} must be a finite number ${mustBePositive ? '> 0' : '>= 0'}, got ${value}`,
      );
    }
  }
}
