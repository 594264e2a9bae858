export {
  HPA_TOLERANCE,
  nativeReplicas,
  type HpaPod,
  type NativeReplicas,
  type NativeReplicasInput,
} from './native-replicas.js';
export { SampleRing } from './sample-ring.js';
export {
  DEFAULT_HISTORY_TIMINGS,
  WorkloadHistory,
  type HistoryTimings,
} from './workload-history.js';
export type {
  HpaMetric,
  ObservedEvent,
  ObservedHpa,
  ObservedPod,
  ObservedVpa,
  PerContainer,
  Resources,
  TargetRef,
  UsageByPod,
} from './observed.js';
export {
  nativeTarget,
  summarizeWorkload,
  type WorkloadInputs,
  type WorkloadSummary,
} from './workload-summary.js';
export { historyValues } from './history-values.js';
export { Html, escapeHtml, html } from './html.js';
export {
  FLEET_SORTS,
  isFleetSort,
  orderFleet,
  replicasSaved,
  type FleetSort,
} from './fleet-order.js';
export {
  FLEET_PAGE_ROWS,
  fleetPage,
  workloadPath,
  type FleetView,
} from './fleet-page.js';
export { workloadPage, type PageHistory } from './workload-page.js';
export {
  HISTORY_METRICS,
  historyFromSeries,
  historyGauges,
  historySelector,
  joinHistory,
  type HistoryGauge,
  type WorkloadLabels,
} from './history-metrics.js';
export {
  HISTORY_RANGES,
  historyStepMs,
  historyView,
  type HistoryRange,
  type HistoryView,
} from './history-range.js';
export { recommendedYaml } from './recommended-yaml.js';
export type { HistoryPoint } from './plots.js';
export {
  fleetTargets,
  workloadKey,
  type FleetTarget,
} from './fleet-targets.js';
export {
  fleetSampler,
  type FleetSampler,
  type FleetSources,
} from './fleet-sampler.js';
export { prepareWorkloadsJson, workloadsJson } from './workloads-json.js';
