import type { MetricName } from './metric-names.js';
import type { ItemBytes } from './metric-value-list.js';
import { podMetric } from './pod-metric.js';
import type {
  ContainerUsage,
  PodForMetrics,
  PodMetricResult,
} from './pod-for-metrics.js';

/** What one query works out about one pod, kept while the pod view and its usage read are. */
export interface PodMeasure {
  readonly result: PodMetricResult;
  /** The pod's item of a pods answer (see `itemBytes`), made the first time one needs it. */
  item?: ItemBytes;
}

/** The query a measure answers: the same key, the same metric, container and item shape. */
export interface MeasureQuery {
  /** Says everything else: e.g. the version, metric and metricLabelSelector text. */
  key: string;
  metric: MetricName;
  container: string | undefined;
}

/** Stands for "no usage read for the pod", so that result is remembered too. */
const NO_USAGE: readonly ContainerUsage[] = [];

/** Per pod view, per usage read of that pod, per query key: the measure. */
const remembered = new WeakMap<
  PodForMetrics,
  WeakMap<readonly ContainerUsage[], Map<string, PodMeasure>>
>();

/**
 * `podMetric`, worked out once per pod view, usage read and query, with room for the pod's
 * item. The HPA asks the same query every sync (15 s by default) and several HPAs may ask
 * the same namespace, while usage is read once per cache period: parsing the annotation
 * and the quantities of a thousand pods, and writing their items, anew for each request
 * was most of an answer's cost.
 *
 * Views and usage reads are never changed in place (the app makes new ones when a pod or
 * its usage changes), so their identities are the key; both are held weakly and go with
 * the pods and reads they belong to. Measures are shared: only `item` may be set, once.
 */
export function rememberedPodMeasure(
  pod: PodForMetrics,
  usage: readonly ContainerUsage[] | undefined,
  query: MeasureQuery,
): PodMeasure {
  let byUsage = remembered.get(pod);
  if (byUsage === undefined) {
    byUsage = new WeakMap();
    remembered.set(pod, byUsage);
  }
  const read = usage ?? NO_USAGE;
  let measures = byUsage.get(read);
  if (measures === undefined) {
    measures = new Map();
    byUsage.set(read, measures);
  }
  let measure = measures.get(query.key);
  if (measure === undefined) {
    measure = {
      result: podMetric(pod, usage, query.metric, query.container),
    };
    measures.set(query.key, measure);
  }
  return measure;
}
