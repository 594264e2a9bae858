import { Counter, Histogram, type Registry } from '@tandem/telemetry';

/** Upstream's `vpa_admission_controller_*` metrics, and Tandem's counts of bad input. */
export interface WebhookMetrics {
  /** Pods admitted, by whether resources were applied. */
  admissionPods: Counter<'applied'>;
  /** Review latency by outcome (applied, skipped, error) and resource (Pod, VPA, unknown). */
  admissionLatency: Histogram<'status' | 'resource'>;
  /** Time per step of a review: read_request, admit, build_response, write_response, total. */
  executionLatency: Histogram<'step'>;
  /** Tandem's own: input the webhook answered without applying anything, by kind. */
  rejectedInput: Counter<'kind'>;
  /** Tandem's own: lookups and writes that failed and were recovered from, by kind. */
  recoveredErrors: Counter<'kind'>;
  /**
   * Tandem's own: pods whose containers kept a resource as declared because the pod sets it
   * at pod level (`spec.resources`), by resource (docs/decisions/0016-pod-level-resources.md).
   */
  podLevelResources: Counter<'resource'>;
  /**
   * Tandem's own: reviews that found a cache without its first list past
   * `--cache-sync-deadline` and admitted the pod unchanged, by the cache's kind.
   */
  coldCache: Counter<'cache'>;
}

// Reviews take milliseconds; the API server gives up after the webhook timeout (≤ 30 s).
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30,
];

export function webhookMetrics(registry: Registry): WebhookMetrics {
  const registers = [registry];
  return {
    admissionPods: new Counter({
      name: 'vpa_admission_controller_admission_pods_total',
      help: 'Number of pods processed by the VPA admission controller',
      labelNames: ['applied'],
      registers,
    }),
    admissionLatency: new Histogram({
      name: 'vpa_admission_controller_admission_latency_seconds',
      help: 'Time spent in the VPA admission controller',
      labelNames: ['status', 'resource'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    executionLatency: new Histogram({
      name: 'vpa_admission_controller_execution_latency_seconds',
      help: 'Time spent in various parts of the VPA admission controller',
      labelNames: ['step'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    rejectedInput: new Counter({
      name: 'tandem_admission_rejected_input_total',
      help: 'Admission requests answered without a decision because the input was unusable, by kind (malformed, oversized, unsupported-media-type, …)',
      labelNames: ['kind'],
      registers,
    }),
    recoveredErrors: new Counter({
      name: 'tandem_admission_recovered_errors_total',
      help: 'Failed lookups and writes the admission webhook recovered from, by kind',
      labelNames: ['kind'],
      registers,
    }),
    coldCache: new Counter({
      name: 'tandem_admission_cold_cache_total',
      help: 'Pods admitted unchanged because a cache the review needed had not completed its first list within --cache-sync-deadline, by cache',
      labelNames: ['cache'],
      registers,
    }),
    podLevelResources: new Counter({
      name: 'tandem_admission_pod_level_resources_total',
      help: "Pods whose containers' values of a resource were left as declared because the pod sets that resource at pod level, by resource",
      labelNames: ['resource'],
      registers,
    }),
  };
}
