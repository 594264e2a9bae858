import type { MetricName } from './metric-names.js';
import { podMetric } from './pod-metric.js';
import type {
  ContainerUsage,
  PodForMetrics,
  PodMetricResult,
} from './pod-for-metrics.js';

/** Per pod view, per usage read of that pod, per metric and container: the result. */
const remembered = new WeakMap<
  PodForMetrics,
  WeakMap<readonly ContainerUsage[], Map<string, PodMetricResult>>
>();

/**
 * `podMetric`, worked out once per pod view, usage read, metric and container. The HPA
 * asks the same query every sync (15 s by default) and several HPAs may ask the same
 * namespace, while usage is read once per cache period: parsing the annotation and the
 * quantities of a thousand pods anew for each request was most of an answer's cost.
 *
 * Views and usage reads are never changed in place (the app makes new ones when a pod or
 * its usage changes), so their identities are the key; both are held weakly and go with
 * the pods and reads they belong to. Results are shared and must not be changed.
 */
export function rememberedPodMetric(
  pod: PodForMetrics,
  usage: readonly ContainerUsage[] | undefined,
  metric: MetricName,
  container: string | undefined,
): PodMetricResult {
  if (usage === undefined) return podMetric(pod, usage, metric, container);
  let byUsage = remembered.get(pod);
  if (byUsage === undefined) {
    byUsage = new WeakMap();
    remembered.set(pod, byUsage);
  }
  let results = byUsage.get(usage);
  if (results === undefined) {
    results = new Map();
    byUsage.set(usage, results);
  }
  const key = container === undefined ? metric : `${metric}/${container}`;
  let result = results.get(key);
  if (result === undefined) {
    result = podMetric(pod, usage, metric, container);
    results.set(key, result);
  }
  return result;
}
