import { Counter, Histogram, type Registry } from '@tandem/telemetry';

/** The adapter's own metrics: what the HPA asked, how it went, and where numbers came from. */
export interface AdapterMetrics {
  /** Requests by kind (discovery, pods, openapi, …) and HTTP status code. */
  requestDuration: Histogram<'kind' | 'code'>;
  /** Failed reads of the usage source (metrics.k8s.io or Prometheus). */
  sourceErrors: Counter<'source'>;
  /** Pods measured, by where their original resources came from (annotation, template, current). */
  originals: Counter<'source'>;
  /** Pods whose original-resources annotation could not be read (a fallback was used). */
  malformedAnnotations: Counter;
  /** Authentication and authorization outcomes. */
  auth: Counter<'outcome'>;
}

export function adapterMetrics(registry: Registry): AdapterMetrics {
  const registers = [registry];
  return {
    requestDuration: new Histogram({
      name: 'tandem_metrics_adapter_request_duration_seconds',
      help: 'Time to answer a request to the custom metrics API, by kind and status code',
      labelNames: ['kind', 'code'],
      buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
      registers,
    }),
    sourceErrors: new Counter({
      name: 'tandem_metrics_adapter_source_errors_total',
      help: 'Failed reads of the usage source, by source',
      labelNames: ['source'],
      registers,
    }),
    originals: new Counter({
      name: 'tandem_metrics_adapter_pod_originals_total',
      help: 'Pods measured, by the source of their original resources (annotation, template, current)',
      labelNames: ['source'],
      registers,
    }),
    malformedAnnotations: new Counter({
      name: 'tandem_metrics_adapter_malformed_annotations_total',
      help: 'Pods whose tandem.dev/original-resources annotation could not be read',
      registers,
    }),
    auth: new Counter({
      name: 'tandem_metrics_adapter_auth_total',
      help: 'Authentication and authorization outcomes of requests',
      labelNames: ['outcome'],
      registers,
    }),
  };
}
