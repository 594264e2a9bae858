import type { LabelSelector } from '@tandem/vpa-api';
import { groupVersion, type CustomMetricsVersion } from './api-group.js';
import { formatMetricQuantity } from './metric-quantity.js';
import type { MetricName } from './metric-names.js';

/**
 * The object a value describes, as custom-metrics-apiserver's `helpers.ReferenceFor` writes
 * it: `apiVersion` is `<group>/<version>`, so `/v1` for the core group's Pod.
 */
export interface DescribedObject {
  kind: string;
  namespace: string;
  name: string;
  apiVersion: string;
}

export const describedPod = (
  namespace: string,
  name: string,
): DescribedObject => ({ kind: 'Pod', namespace, name, apiVersion: '/v1' });

export const describedDeployment = (
  namespace: string,
  name: string,
): DescribedObject => ({
  kind: 'Deployment',
  namespace,
  name,
  apiVersion: 'apps/v1',
});

/** One object's value of one metric, ready to serve. */
export interface MetricValue {
  describedObject: DescribedObject;
  metric: MetricName;
  /** The request's metricLabelSelector as a LabelSelector; undefined when it had none. */
  selector: LabelSelector | undefined;
  /** RFC 3339 with second precision, as `metav1.Time` prints. */
  timestamp: string;
  windowSeconds: number;
  /** Whole percent for `*_utilization_*`, cores for `cpu_usage`, bytes for `memory_usage`. */
  value: number;
}

/**
 * A MetricValueList in the shape of `version` (reference §1.4). `kind` and `apiVersion` are
 * set at the top because the Go client decodes by them. v1beta1 differs from v1beta2 in
 * three places that are easy to get wrong: `metricName` instead of `metric.name`,
 * `selector` on the item, and the window under the key `window`. A missing selector is
 * `null`, not absent: the Go field has no `omitempty`.
 */
export function metricValueList(
  version: CustomMetricsVersion,
  values: readonly MetricValue[],
): object {
  const item: (value: MetricValue) => object =
    version === 'v1beta2' ? v1beta2Item : v1beta1Item;
  return {
    kind: 'MetricValueList',
    apiVersion: groupVersion(version),
    metadata: {},
    items: values.map(item),
  };
}

function v1beta2Item(value: MetricValue) {
  return {
    describedObject: value.describedObject,
    metric: { name: value.metric, selector: value.selector ?? null },
    timestamp: value.timestamp,
    windowSeconds: value.windowSeconds,
    value: formatMetricQuantity(value.value),
  };
}

function v1beta1Item(value: MetricValue) {
  return {
    describedObject: value.describedObject,
    metricName: value.metric,
    timestamp: value.timestamp,
    window: value.windowSeconds,
    value: formatMetricQuantity(value.value),
    selector: value.selector ?? null,
  };
}
