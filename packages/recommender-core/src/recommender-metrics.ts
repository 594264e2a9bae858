import { Counter, Gauge, Histogram, type Registry } from '@tandem/telemetry';
import { SeriesHistogram } from './series-histogram.js';

/** The upstream-compatible `vpa_recommender_*` metrics this recommender exports. */
export interface RecommenderMetrics {
  executionLatency: Histogram<'step'>;
  aggregateContainerStates: Gauge;
  vpaObjects: Gauge<
    | 'update_mode'
    | 'has_recommendation'
    | 'api'
    | 'matches_pods'
    | 'unsupported_config'
  >;
  /** From a VPA's creation to its first recommendation, observed when that is written. */
  recommendationLatency: Histogram;
  metricServerResponses: Counter<'is_error' | 'client_name'>;
  /** `vpa_resources_get_resources_count`: container resources read, by where they came from. */
  resourceReads: Counter<'source'>;
  /** `--storage=prometheus`: every request to the Prometheus HTTP API, by status code. */
  prometheusRequests: Counter<'code' | 'method'>;
  prometheusRequestDuration: Histogram<'code' | 'method'>;
  /** Tandem's own: problems the loop recovered from, by kind. */
  recoveredErrors: Counter<'kind'>;
  /**
   * Tandem's own: OOM kills of containers whose memory target is already at maxAllowed.
   * Labelled by VPA and container, never by pod: a crash loop makes a new pod name per
   * eviction, while a VPA's containers are few and fixed, so the series are bounded by the
   * VPA containers that ever hit their cap (the Event names the pod).
   */
  oomAtMaxAllowed: Counter<'namespace' | 'vpa' | 'container'>;
  /**
   * Tandem's own: VPAs by the strategy the recommender runs for them; `fallback="true"` for
   * those whose annotations did not read and that run the default instead. A new metric:
   * `vpa_recommender_vpa_objects_count` keeps upstream's labels.
   */
  vpaStrategies: Gauge<'strategy' | 'fallback'>;
  /** Upstream's `vpa_quality_*` family: created and registered only when asked for. */
  quality: QualityMetrics | undefined;
}

/**
 * Upstream's `vpa_quality_*` metrics (pkg/utils/metrics/quality): every usage sample of a
 * container under a VPA compared with the last recommendation of its aggregate, and every
 * recommendation compared with the previous one. The histograms are {@link SeriesHistogram}s:
 * they are observed several times per sample.
 */
export interface QualityMetrics {
  /** `(usage - recommendation) / recommendation`, for samples that have a recommendation. */
  usageRecommendationRelativeDiffs: SeriesHistogram<
    'update_mode' | 'resource' | 'is_oom'
  >;
  usageSampleMissingRecommendation: Counter<
    'update_mode' | 'resource' | 'is_oom'
  >;
  /** `|usage - recommendation|` in cores, when the recommendation is above the usage. */
  cpuRecommendationOverUsageDiffs: SeriesHistogram<
    'update_mode' | 'recommendation_missing'
  >;
  memRecommendationOverUsageDiffs: SeriesHistogram<
    'update_mode' | 'recommendation_missing' | 'is_oom'
  >;
  /** `|usage - recommendation|` in cores, when the recommendation is at most the usage (or missing). */
  cpuRecommendationLowerEqualUsageDiffs: SeriesHistogram<
    'update_mode' | 'recommendation_missing'
  >;
  memRecommendationLowerEqualUsageDiffs: SeriesHistogram<
    'update_mode' | 'recommendation_missing' | 'is_oom'
  >;
  cpuRecommendations: SeriesHistogram<'update_mode'>;
  memRecommendations: SeriesHistogram<'update_mode' | 'is_oom'>;
  /** `new / old - 1` per resource, each time a VPA's recommendation is computed. */
  relativeRecommendationChanges: SeriesHistogram<
    'update_mode' | 'resource' | 'vpa_size_log2'
  >;
}

export interface RecommenderMetricsOptions {
  /** `--quality-metrics`: also create and register the `vpa_quality_*` family. */
  readonly quality?: boolean;
}

export function recommenderMetrics(
  registry: Registry,
  options: RecommenderMetricsOptions = {},
): RecommenderMetrics {
  const registers = [registry];
  return {
    executionLatency: new Histogram({
      name: 'vpa_recommender_execution_latency_seconds',
      help: 'Time spent in each step of the recommender loop',
      labelNames: ['step'],
      // Upstream's 23 buckets (pkg/utils/metrics), so dashboards' quantiles carry over.
      buckets: [
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 40, 50, 60, 70,
        80, 90, 100, 120, 150, 240, 300,
      ],
      registers,
    }),
    aggregateContainerStates: new Gauge({
      name: 'vpa_recommender_aggregate_container_states_count',
      help: 'Number of aggregate container states being tracked',
      registers,
    }),
    vpaObjects: new Gauge({
      name: 'vpa_recommender_vpa_objects_count',
      help: 'Number of VPA objects handled by this recommender',
      labelNames: [
        'update_mode',
        'has_recommendation',
        'api',
        'matches_pods',
        'unsupported_config',
      ],
      registers,
    }),
    recommendationLatency: new Histogram({
      name: 'vpa_recommender_recommendation_latency_seconds',
      help: 'Time elapsed from creating a valid VPA configuration to the first recommendation',
      buckets: [
        1, 2, 5, 7.5, 10, 20, 30, 40, 50, 60, 90, 120, 150, 180, 240, 300, 600,
        900, 1800,
      ],
      registers,
    }),
    metricServerResponses: new Counter({
      name: 'vpa_recommender_metric_server_responses',
      help: 'Responses of the metrics API',
      labelNames: ['is_error', 'client_name'],
      registers,
    }),
    resourceReads: new Counter({
      name: 'vpa_resources_get_resources_count',
      help: 'Count of calls to get the resources of a pod or container.',
      labelNames: ['source'],
      registers,
    }),
    prometheusRequests: new Counter({
      name: 'vpa_recommender_prometheus_client_api_requests_count',
      help: 'Requests to the Prometheus HTTP API',
      labelNames: ['code', 'method'],
      registers,
    }),
    prometheusRequestDuration: new Histogram({
      name: 'vpa_recommender_prometheus_client_api_requests_duration_seconds',
      help: 'Duration of requests to the Prometheus HTTP API',
      labelNames: ['code', 'method'],
      buckets: [
        0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 5,
        10, 20, 30, 60, 120, 300,
      ],
      registers,
    }),
    recoveredErrors: new Counter({
      name: 'tandem_recommender_recovered_errors_total',
      help: 'Problems the recommender logged and recovered from, by kind',
      labelNames: ['kind'],
      registers,
    }),
    oomAtMaxAllowed: new Counter({
      name: 'tandem_recommender_oom_at_max_allowed_total',
      help: 'OOM kills of containers whose memory target is already at maxAllowed, by VPA and container',
      labelNames: ['namespace', 'vpa', 'container'],
      registers,
    }),
    vpaStrategies: new Gauge({
      name: 'tandem_recommender_vpa_strategies',
      help: 'VPAs by the strategy the recommender runs for them (fallback: their annotations did not read, the default runs)',
      labelNames: ['strategy', 'fallback'],
      registers,
    }),
    quality: options.quality === true ? qualityMetrics(registry) : undefined,
  };
}

/** prometheus.ExponentialBuckets(start, 2, 17), as Go computes them (doubling is exact). */
function doublingBuckets(start: number): number[] {
  const buckets = [start];
  while (buckets.length < 17) buckets.push((buckets.at(-1) ?? start) * 2);
  return buckets;
}

/** 0.01 to 655.36 cores. */
const CPU_BUCKETS = doublingBuckets(0.01);
/** 1 MB to 65.5 GB. */
const MEMORY_BUCKETS = doublingBuckets(1e6);
/** From -100 % to ×100. */
const RELATIVE_BUCKETS = [
  -1, -0.75, -0.5, -0.25, -0.1, -0.05, -0.025, -0.01, -0.005, -0.0025, -0.001,
  0, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5,
  10, 25, 50, 100,
];

/** Upstream's names, help texts, labels and buckets, so its dashboards work unchanged. */
function qualityMetrics(registry: Registry): QualityMetrics {
  const registers = [registry];
  return {
    usageRecommendationRelativeDiffs: new SeriesHistogram({
      name: 'vpa_quality_usage_recommendation_relative_diffs',
      help: 'Diffs between recommendation and usage, normalized by recommendation value',
      labelNames: ['update_mode', 'resource', 'is_oom'],
      buckets: RELATIVE_BUCKETS,
      registers,
    }),
    usageSampleMissingRecommendation: new Counter({
      name: 'vpa_quality_usage_sample_missing_recommendation_count',
      help: 'Count of usage samples when a recommendation should be present but is missing',
      labelNames: ['update_mode', 'resource', 'is_oom'],
      registers,
    }),
    cpuRecommendationOverUsageDiffs: new SeriesHistogram({
      name: 'vpa_quality_cpu_recommendation_over_usage_diffs_cores',
      help: 'Absolute diffs between recommendation and usage for CPU when recommendation > usage',
      labelNames: ['update_mode', 'recommendation_missing'],
      buckets: CPU_BUCKETS,
      registers,
    }),
    memRecommendationOverUsageDiffs: new SeriesHistogram({
      name: 'vpa_quality_mem_recommendation_over_usage_diffs_bytes',
      help: 'Absolute diffs between recommendation and usage for memory when recommendation > usage',
      labelNames: ['update_mode', 'recommendation_missing', 'is_oom'],
      buckets: MEMORY_BUCKETS,
      registers,
    }),
    cpuRecommendationLowerEqualUsageDiffs: new SeriesHistogram({
      name: 'vpa_quality_cpu_recommendation_lower_equal_usage_diffs_cores',
      help: 'Absolute diffs between recommendation and usage for CPU when recommendation <= usage',
      labelNames: ['update_mode', 'recommendation_missing'],
      buckets: CPU_BUCKETS,
      registers,
    }),
    memRecommendationLowerEqualUsageDiffs: new SeriesHistogram({
      name: 'vpa_quality_mem_recommendation_lower_equal_usage_diffs_bytes',
      help: 'Absolute diffs between recommendation and usage for memory when recommendation <= usage',
      labelNames: ['update_mode', 'recommendation_missing', 'is_oom'],
      buckets: MEMORY_BUCKETS,
      registers,
    }),
    cpuRecommendations: new SeriesHistogram({
      name: 'vpa_quality_cpu_recommendations_cores',
      help: 'CPU recommendation values as observed on recorded usage sample',
      labelNames: ['update_mode'],
      buckets: CPU_BUCKETS,
      registers,
    }),
    memRecommendations: new SeriesHistogram({
      name: 'vpa_quality_mem_recommendations_bytes',
      help: 'Memory recommendation values as observed on recorded usage sample',
      labelNames: ['update_mode', 'is_oom'],
      buckets: MEMORY_BUCKETS,
      registers,
    }),
    relativeRecommendationChanges: new SeriesHistogram({
      name: 'vpa_quality_relative_recommendation_changes',
      help: 'Changes between consecutive recommendation values, normalized by old value',
      labelNames: ['update_mode', 'resource', 'vpa_size_log2'],
      buckets: RELATIVE_BUCKETS,
      registers,
    }),
  };
}

/** Every update mode upstream knows (`GetUpdateModes`), for the zero-filled VPA counts. */
const UPDATE_MODES = [
  'Off',
  'Initial',
  'Recreate',
  'Auto',
  'InPlaceOrRecreate',
  'InPlace',
] as const;
const API_VERSIONS = ['v1beta1', 'v1beta2', 'v1'] as const;
const BOOLEANS = [false, true] as const;

export interface VpaObjectLabels {
  updateMode: string | undefined;
  hasRecommendation: boolean;
  matchesPods: boolean;
  unsupportedConfig: boolean;
}

/**
 * Upstream's ObjectCounter: each cycle sets every label combination, zero included, so a
 * count that drops to nothing reads 0 instead of keeping its last value. The VPAs are read
 * through the v1 API, and an unset mode counts as `Recreate`, as upstream 1.8 reports them.
 */
export function vpaObjectCounter() {
  // Per update mode, a count per (has recommendation, matches pods, unsupported): a VPA is
  // counted without building a string key (a cycle counts every VPA).
  const counts = new Map<string, Float64Array>();
  const indexOf = (has: boolean, matches: boolean, unsupported: boolean) =>
    (has ? 4 : 0) + (matches ? 2 : 0) + (unsupported ? 1 : 0);
  return {
    add(labels: VpaObjectLabels): void {
      const mode = labels.updateMode || 'Recreate';
      let row = counts.get(mode);
      if (row === undefined) {
        row = new Float64Array(8);
        counts.set(mode, row);
      }
      const index = indexOf(
        labels.hasRecommendation,
        labels.matchesPods,
        labels.unsupportedConfig,
      );
      row[index] = (row[index] ?? 0) + 1;
    },
    observe(gauge: RecommenderMetrics['vpaObjects']): void {
      gauge.reset();
      const modes = new Set<string>([...UPDATE_MODES, ...counts.keys()]);
      for (const mode of modes)
        for (const has of BOOLEANS)
          for (const api of API_VERSIONS)
            for (const matches of BOOLEANS)
              for (const unsupported of BOOLEANS)
                gauge.set(
                  {
                    update_mode: mode,
                    has_recommendation: String(has),
                    api,
                    matches_pods: String(matches),
                    unsupported_config: String(unsupported),
                  },
                  api === 'v1'
                    ? (counts.get(mode)?.[indexOf(has, matches, unsupported)] ??
                        0)
                    : 0,
                );
    },
  };
}
