export { AggregateContainerState } from './aggregate-container-state.js';
export {
  type AggregationConfig,
  DEFAULT_AGGREGATION_CONFIG,
  requireValidAggregationConfig,
} from './aggregation-config.js';
export {
  type AggregateCheckpointStatus,
  SUPPORTED_CHECKPOINT_VERSION,
} from './checkpoint-status.js';
export { confidence } from './confidence.js';
export {
  type ContainerRecommendation,
  type RecommendationFormat,
  type ResourceQuantities,
  toContainerRecommendations,
} from './container-recommendations.js';
export {
  ContainerState,
  type ContainerUsageSample,
  oomBumpedMemory,
  StaleOomError,
} from './container-state.js';
export {
  type AmountEstimator,
  percentileEstimator,
  withConfidenceMultiplier,
  withMargin,
  withMinimum,
} from './estimators.js';
export { humanizedMemoryText } from './humanized-memory.js';
export {
  podMinimumShare,
  recommendPod,
  type RecommendedContainerResources,
} from './recommend-pod.js';
export {
  DEFAULT_RECOMMENDER_CONFIG,
  type RecommenderConfig,
  requireValidRecommenderConfig,
} from './recommender-config.js';
export {
  MAX_RESOURCE_AMOUNT,
  type ResourceAmounts,
  type ResourceName,
  scaleResourceAmount,
  toResourceAmount,
} from './resource-amount.js';
export { seededRandom } from './seeded-random.js';
