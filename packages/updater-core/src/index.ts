export {
  runUpdaterCycle,
  type UpdaterCycleContext,
  type UpdaterCycleSummary,
} from './cycle.js';
export {
  dryRunActions,
  type ActionResult,
  type EvictionOutcome,
  type PodActions,
  type ResizeOutcome,
} from './pod-actions.js';
export { PodEvaluations } from './pod-evaluations.js';
export { updaterMetrics, type UpdaterMetrics } from './updater-metrics.js';
