export {
  CUSTOM_METRICS_GROUP,
  CUSTOM_METRICS_VERSIONS,
  isCustomMetricsVersion,
  type CustomMetricsVersion,
} from './api-group.js';
export { METRIC_NAMES, isMetricName, type MetricName } from './metric-names.js';
export { parseMetricPath, type MetricRequest } from './metric-path.js';
export { apiGroup, apiGroupList, apiResourceList } from './discovery.js';
export {
  openApiHash,
  openApiV2,
  openApiV3Discovery,
  openApiV3Group,
} from './openapi.js';
export { metricValueList, type MetricValue } from './metric-value-list.js';
export { formatMetricQuantity } from './metric-quantity.js';
export { metricNotFoundMessage, status, type StatusCode } from './status.js';
export { containerFromMetricSelector } from './metric-selector.js';
export { podMetric } from './pod-metric.js';
export type {
  ContainerResources,
  ContainerUsage,
  OriginalsSource,
  PodForMetrics,
  PodMetricResult,
} from './pod-for-metrics.js';
export { isServedByTandem } from './served-by-tandem.js';
export { mergeDiscovery, type MergedDiscovery } from './discovery-merge.js';
