import {
  type AggregationConfig,
  type RecommendationFormat,
  type RecommenderConfig,
  requireValidAggregationConfig,
  requireValidRecommenderConfig,
} from '@tandem/estimators';
import {
  FlagError,
  parseDuration,
  parseNumberIn,
  parsePositiveInteger,
} from '@tandem/flags';

/** The estimator settings upstream's flags tune: the model's and the recommendation's. */
export interface EstimatorSettings {
  aggregation: AggregationConfig;
  recommender: RecommenderConfig;
  format: RecommendationFormat;
}

/** Upstream's tuning flags with upstream's defaults, as `node:util` parseArgs options. */
export const ESTIMATOR_FLAG_OPTIONS = {
  'target-cpu-percentile': { type: 'string', default: '0.9' },
  'target-memory-percentile': { type: 'string', default: '0.9' },
  'recommendation-lower-bound-cpu-percentile': {
    type: 'string',
    default: '0.5',
  },
  'recommendation-lower-bound-memory-percentile': {
    type: 'string',
    default: '0.5',
  },
  'recommendation-upper-bound-cpu-percentile': {
    type: 'string',
    default: '0.95',
  },
  'recommendation-upper-bound-memory-percentile': {
    type: 'string',
    default: '0.95',
  },
  'recommendation-margin-fraction': { type: 'string', default: '0.15' },
  'pod-recommendation-min-cpu-millicores': { type: 'string', default: '25' },
  'pod-recommendation-min-memory-mb': { type: 'string', default: '250' },
  'confidence-interval-cpu': { type: 'string', default: '24h' },
  'confidence-interval-memory': { type: 'string', default: '24h' },
  'memory-aggregation-interval': { type: 'string', default: '24h' },
  'memory-aggregation-interval-count': { type: 'string', default: '8' },
  'memory-histogram-decay-half-life': { type: 'string', default: '24h' },
  'cpu-histogram-decay-half-life': { type: 'string', default: '24h' },
  'oom-bump-up-ratio': { type: 'string', default: '1.2' },
  'oom-min-bump-up-bytes': { type: 'string', default: '104857600' },
  'round-cpu-millicores': { type: 'string', default: '1' },
  'round-memory-bytes': { type: 'string', default: '1' },
  'humanize-memory': { type: 'boolean', default: false },
  // Deprecated upstream and without effect there; accepted so upstream manifests start.
  'min-checkpoints': { type: 'string', default: '10' },
} as const;

type EstimatorFlagValues = {
  [name in keyof typeof ESTIMATOR_FLAG_OPTIONS]: (typeof ESTIMATOR_FLAG_OPTIONS)[name]['default'] extends boolean
    ? boolean
    : string;
};

export function estimatorSettings(
  values: EstimatorFlagValues,
): EstimatorSettings {
  const percentile = (flag: keyof EstimatorFlagValues & string) =>
    parseNumberIn(String(values[flag]), flag, 0, 1);
  const amount = (flag: keyof EstimatorFlagValues & string) =>
    parseNumberIn(String(values[flag]), flag, 0);
  const duration = (flag: keyof EstimatorFlagValues & string) =>
    parseDuration(String(values[flag]), flag);
  const whole = (flag: keyof EstimatorFlagValues & string) =>
    parsePositiveInteger(String(values[flag]), flag);
  whole('min-checkpoints');
  const settings: EstimatorSettings = {
    recommender: {
      targetCpuPercentile: percentile('target-cpu-percentile'),
      targetMemoryPercentile: percentile('target-memory-percentile'),
      lowerBoundCpuPercentile: percentile(
        'recommendation-lower-bound-cpu-percentile',
      ),
      lowerBoundMemoryPercentile: percentile(
        'recommendation-lower-bound-memory-percentile',
      ),
      upperBoundCpuPercentile: percentile(
        'recommendation-upper-bound-cpu-percentile',
      ),
      upperBoundMemoryPercentile: percentile(
        'recommendation-upper-bound-memory-percentile',
      ),
      recommendationMarginFraction: amount('recommendation-margin-fraction'),
      podMinCpuMillicores: amount('pod-recommendation-min-cpu-millicores'),
      podMinMemoryMb: amount('pod-recommendation-min-memory-mb'),
      confidenceIntervalCpuMs: duration('confidence-interval-cpu'),
      confidenceIntervalMemoryMs: duration('confidence-interval-memory'),
    },
    aggregation: {
      memoryAggregationIntervalMs: duration('memory-aggregation-interval'),
      memoryAggregationIntervalCount: whole(
        'memory-aggregation-interval-count',
      ),
      memoryHistogramDecayHalfLifeMs: duration(
        'memory-histogram-decay-half-life',
      ),
      cpuHistogramDecayHalfLifeMs: duration('cpu-histogram-decay-half-life'),
      oomBumpUpRatio: amount('oom-bump-up-ratio'),
      oomMinBumpUpBytes: amount('oom-min-bump-up-bytes'),
    },
    format: {
      roundCpuMillicores: whole('round-cpu-millicores'),
      roundMemoryBytes: whole('round-memory-bytes'),
      humanizeMemory: values['humanize-memory'] === true,
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
