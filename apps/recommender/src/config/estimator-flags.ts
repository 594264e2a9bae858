import {
  type AggregationConfig,
  type RecommendationFormat,
  type RecommenderConfig,
  requireValidAggregationConfig,
  requireValidRecommenderConfig,
} from '@tandem/estimators';
import {
  booleanFlag,
  FlagError,
  flagGroup,
  type FlagParser,
  type FlagSettings,
  parseDuration,
  parseNumberIn,
  parsePositiveInteger,
  stringFlag,
} from '@tandem/flags';

/** The estimator settings upstream's flags tune: the model's and the recommendation's. */
export interface EstimatorSettings {
  aggregation: AggregationConfig;
  recommender: RecommenderConfig;
  format: RecommendationFormat;
}

const percentile: FlagParser<number> = (raw, flag) =>
  parseNumberIn(raw, flag, 0, 1);
const amount: FlagParser<number> = (raw, flag) => parseNumberIn(raw, flag, 0);

/** Upstream's recommendation flags (percentiles, margin, minimums, rounding), in its order. */
export const RECOMMENDATION_FLAGS = flagGroup('Recommendation', {
  'recommendation-margin-fraction': stringFlag(
    '0.15',
    'Fraction of usage added as the safety margin to the recommended request',
    amount,
  ),
  'pod-recommendation-min-cpu-millicores': stringFlag(
    '25',
    'Minimum CPU recommendation for a pod',
    amount,
  ),
  'pod-recommendation-min-memory-mb': stringFlag(
    '250',
    'Minimum memory recommendation for a pod',
    amount,
  ),
  'target-cpu-percentile': stringFlag(
    '0.9',
    "CPU usage percentile that will be used as a base for CPU target recommendation. Doesn't affect CPU lower bound, CPU upper bound nor memory recommendations.",
    percentile,
  ),
  'recommendation-lower-bound-cpu-percentile': stringFlag(
    '0.5',
    'CPU usage percentile that will be used for the lower bound on CPU recommendation.',
    percentile,
  ),
  'recommendation-upper-bound-cpu-percentile': stringFlag(
    '0.95',
    'CPU usage percentile that will be used for the upper bound on CPU recommendation.',
    percentile,
  ),
  'confidence-interval-cpu': stringFlag(
    '24h',
    'The time interval used for computing the confidence multiplier for the CPU lower and upper bound. Default: 24h',
    parseDuration,
  ),
  'target-memory-percentile': stringFlag(
    '0.9',
    "Memory usage percentile that will be used as a base for memory target recommendation. Doesn't affect memory lower bound nor memory upper bound.",
    percentile,
  ),
  'recommendation-lower-bound-memory-percentile': stringFlag(
    '0.5',
    'Memory usage percentile that will be used for the lower bound on memory recommendation.',
    percentile,
  ),
  'recommendation-upper-bound-memory-percentile': stringFlag(
    '0.95',
    'Memory usage percentile that will be used for the upper bound on memory recommendation.',
    percentile,
  ),
  'confidence-interval-memory': stringFlag(
    '24h',
    'The time interval used for computing the confidence multiplier for the memory lower and upper bound. Default: 24h',
    parseDuration,
  ),
  'humanize-memory': booleanFlag(
    false,
    'DEPRECATED: Convert memory values in recommendations to the highest appropriate SI unit with up to 2 decimal places for better readability. This flag is deprecated and will be removed in a future version. Use --round-memory-bytes instead.',
  ),
  'round-cpu-millicores': stringFlag(
    '1',
    'CPU recommendation rounding factor in millicores. The CPU value will always be rounded up to the nearest multiple of this factor.',
    parsePositiveInteger,
  ),
  'round-memory-bytes': stringFlag(
    '1',
    'Memory recommendation rounding factor in bytes. The Memory value will always be rounded up to the nearest multiple of this factor.',
    parsePositiveInteger,
  ),
});

/** Upstream's aggregation flags (memory peaks, decay, OOM bump), in its order. */
export const AGGREGATION_FLAGS = flagGroup('Aggregation', {
  'memory-aggregation-interval': stringFlag(
    '24h',
    'Default length of a single interval, for which the peak memory usage is computed. Memory usage peaks are aggregated in multiples of this interval. In other words there is one memory usage sample per interval (the maximum usage over that interval). This value applies to all VPAs unless overridden in the VPA spec. Default is 24h.',
    parseDuration,
  ),
  'memory-aggregation-interval-count': stringFlag(
    '8',
    'Default number of consecutive memory-aggregation-intervals which make up the MemoryAggregationWindowLength which in turn is the period for memory usage aggregation by VPA. In other words, MemoryAggregationWindowLength = memory-aggregation-interval * memory-aggregation-interval-count. This value applies to all VPAs unless overridden in the VPA spec. Default is 8.',
    parsePositiveInteger,
  ),
  'memory-histogram-decay-half-life': stringFlag(
    '24h',
    "The amount of time it takes a historical memory usage sample to lose half of its weight. In other words, a fresh usage sample is twice as 'important' as one with age equal to the half life period.",
    parseDuration,
  ),
  'cpu-histogram-decay-half-life': stringFlag(
    '24h',
    'The amount of time it takes a historical CPU usage sample to lose half of its weight.',
    parseDuration,
  ),
  'oom-bump-up-ratio': stringFlag(
    '1.2',
    'Default memory bump up ratio when OOM occurs. This value applies to all VPAs unless overridden in the VPA spec. Default is 1.2.',
    amount,
  ),
  'oom-min-bump-up-bytes': stringFlag(
    '104857600',
    'Default minimal increase of memory (in bytes) when OOM occurs. This value applies to all VPAs unless overridden in the VPA spec. Default is 100 * 1024 * 1024 (100Mi).',
    amount,
  ),
});

/** The two groups' settings as the estimator packages take them, checked by them. */
export function estimatorSettings(
  flags: FlagSettings<typeof RECOMMENDATION_FLAGS & typeof AGGREGATION_FLAGS>,
): EstimatorSettings {
  const settings: EstimatorSettings = {
    recommender: {
      targetCpuPercentile: flags['target-cpu-percentile'],
      targetMemoryPercentile: flags['target-memory-percentile'],
      lowerBoundCpuPercentile:
        flags['recommendation-lower-bound-cpu-percentile'],
      lowerBoundMemoryPercentile:
        flags['recommendation-lower-bound-memory-percentile'],
      upperBoundCpuPercentile:
        flags['recommendation-upper-bound-cpu-percentile'],
      upperBoundMemoryPercentile:
        flags['recommendation-upper-bound-memory-percentile'],
      recommendationMarginFraction: flags['recommendation-margin-fraction'],
      podMinCpuMillicores: flags['pod-recommendation-min-cpu-millicores'],
      podMinMemoryMb: flags['pod-recommendation-min-memory-mb'],
      confidenceIntervalCpuMs: flags['confidence-interval-cpu'],
      confidenceIntervalMemoryMs: flags['confidence-interval-memory'],
    },
    aggregation: {
      memoryAggregationIntervalMs: flags['memory-aggregation-interval'],
      memoryAggregationIntervalCount:
        flags['memory-aggregation-interval-count'],
      memoryHistogramDecayHalfLifeMs: flags['memory-histogram-decay-half-life'],
      cpuHistogramDecayHalfLifeMs: flags['cpu-histogram-decay-half-life'],
      oomBumpUpRatio: flags['oom-bump-up-ratio'],
      oomMinBumpUpBytes: flags['oom-min-bump-up-bytes'],
    },
    format: {
      roundCpuMillicores: flags['round-cpu-millicores'],
      roundMemoryBytes: flags['round-memory-bytes'],
      humanizeMemory: flags['humanize-memory'],
    },
  };
  // The packages' own checks, for what a single flag cannot tell (e.g. a zero ratio).
  try {
    requireValidRecommenderConfig(settings.recommender);
    requireValidAggregationConfig(settings.aggregation);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new FlagError(error.message);
  }
  return settings;
}
