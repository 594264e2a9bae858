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
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120],
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
