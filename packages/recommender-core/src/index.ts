export * from './model/index.js';
export { applyHistory, type AppliedHistory } from './history/apply-history.js';
export {
  clusterHistory,
  type ClusterHistory,
  type HistoryAnswers,
  type HistoryLabelNames,
  type PodHistory,
} from './history/cluster-history.js';
export {
  containerSelector,
  historyQueries,
  type HistoryQueries,
  type HistoryQuerySettings,
} from './history/history-queries.js';
export {
  parsePrometheusDuration,
  PrometheusDurationError,
} from './history/prometheus-duration.js';
export { RecommenderEventReason } from './event-reasons.js';
export {
  loadCheckpoints,
  type CheckpointLoaderOptions,
} from './checkpoints/checkpoint-loader.js';
export {
  writeCheckpoints,
  type CheckpointWriteResult,
  type CheckpointWriterOptions,
} from './checkpoints/checkpoint-writer.js';
export type { VpaStore } from './checkpoints/vpa-store.js';
export {
  inMemoryVpaStore,
  type InMemoryVpaStore,
} from './checkpoints/in-memory-vpa-store.js';
export { loadVpas, runCycle, type CycleSummary } from './cycle/cycle.js';
export type { CycleContext } from './cycle/cycle-context.js';
export { drainQueue } from './cycle/worker-pool.js';
export {
  recommenderMetrics,
  type QualityMetrics,
  type RecommenderMetrics,
  type RecommenderMetricsOptions,
} from './recommender-metrics.js';
export {
  defaultCycleSettings,
  freshCycleState,
  type CycleInputs,
  type CycleObservability,
  type CycleSettings,
  type CycleState,
} from './cycle/cycle-context.js';
export { endTerm, startTerm } from './cycle/terms.js';
export {
  integerCpuContainers,
  roundUpToWholeCores,
} from './model/integer-cpu.js';
export {
  vpaObjectCounter,
  type VpaObjectLabels,
} from './recommender-metrics.js';
