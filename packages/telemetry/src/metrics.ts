import { collectDefaultMetrics, Registry } from 'prom-client';

// Apps define their metrics with these, registered on the registry below.
export { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * A fresh prom-client registry (not the global one) with Node's default process
 * metrics. No prefix and no default labels: apps register upstream names such as
 * `vpa_recommender_execution_latency_seconds` exactly as upstream spells them.
 */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
