export {
  CUSTOM_METRICS_GROUP,
  CUSTOM_METRICS_VERSIONS,
  isCustomMetricsVersion,
  type CustomMetricsVersion,
} from './api-group.js';
export {
  METRIC_NAMES,
  UTILIZATION_METRICS,
  isMetricName,
  isUtilizationMetric,
  metricMeaning,
  type MeasuredResource,
  type MetricName,
} from './metric-names.js';
export { parseMetricPath, type MetricRequest } from './metric-path.js';
export {
  apiGroup,
  apiGroupList,
  apiResourceList,
  DEPLOYMENTS,
} from './discovery.js';
export {
  openApiHash,
  openApiV2,
  openApiV3Discovery,
  openApiV3Group,
} from './openapi.js';
export {
  describedDeployment,
  describedPod,
  metricValueList,
  type DescribedObject,
  type MetricValue,
} from './metric-value-list.js';
export { formatMetricQuantity, wholePercent } from './metric-quantity.js';
export {
  planMetricRequest,
  type MetricAnswer,
  type MetricPlan,
  type MetricQuery,
  type MetricTarget,
} from './metric-plan.js';
export {
  answerMetricQuery,
  pickedFrom,
  type DeploymentRead,
  type MetricInputs,
  type PodPicker,
  type PodsPicked,
  type UsageRead,
} from './metric-answer.js';
export {
  KEPT_ANSWERS_LIMITS,
  keptAnswers,
  type AnswerInputsRevision,
  type KeptAnswers,
  type KeptAnswersLimits,
} from './kept-answers.js';
export type { MetricObservations, PodRef } from './metric-observations.js';
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
