import { Counter, Gauge, Histogram, type Registry } from '@tandem/telemetry';

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
}

export function recommenderMetrics(registry: Registry): RecommenderMetrics {
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
  const counts = new Map<string, number>();
  const keyOf = (
    mode: string,
    has: boolean,
    api: string,
    matches: boolean,
    unsupported: boolean,
  ) => `${mode}|${has}|${api}|${matches}|${unsupported}`;
  return {
    add(labels: VpaObjectLabels): void {
      const key = keyOf(
        labels.updateMode || 'Recreate',
        labels.hasRecommendation,
        'v1',
        labels.matchesPods,
        labels.unsupportedConfig,
      );
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    observe(gauge: RecommenderMetrics['vpaObjects']): void {
      gauge.reset();
      const modes = new Set<string>(UPDATE_MODES);
      for (const key of counts.keys()) modes.add(key.split('|')[0] ?? '');
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
                  counts.get(keyOf(mode, has, api, matches, unsupported)) ?? 0,
                );
    },
  };
}
