export {
  ClusterModel,
  type ClusterModelOptions,
  type PodSnapshot,
  type UsageResult,
} from './cluster-model.js';
export { canonicalLabelText } from './label-set.js';
export {
  type ModelError,
  type ModelErrorKind,
  type ModelFailure,
  type ModelResult,
  type OomResult,
} from './model-result.js';
export { objectKey } from './object-key.js';
export { oomsFromEvictionEvent, type ObservedEvent } from './eviction-ooms.js';
export {
  type ObservedContainerStatus,
  type ObservedOom,
  type ObservedPod,
  oomsFromPodUpdate,
} from './oom-detection.js';
export { podSnapshotFromPod, type PodSnapshotResult } from './pod-snapshot.js';
export { recommenderPod } from './recommender-pod.js';
export { statusChanged } from './status-changed.js';
export { type TrackedVpa, type VpaTarget } from './tracked-vpa.js';
export { checkpointsForVpa } from './vpa-checkpoints.js';
export {
  NO_PODS_MATCHED_MESSAGE,
  NO_PODS_MATCHED_REASON,
} from './vpa-conditions.js';
export {
  DEFAULT_RECOMMENDER_NAME,
  vpaSelection,
  type VpaSelectionOptions,
} from './vpa-selection.js';
export { shareWithObserved, TextInterner } from './status-sharing.js';
export { computeVpaStatus, type VpaStatusOptions } from './vpa-status.js';
export {
  strategySettings,
  type StrategySettings,
} from './vpa-strategy-state.js';
export {
  memoryMaxAllowedBytes,
  type OomAtMaxAllowed,
  oomAtMaxAllowedMessage,
  recommendedMemoryBytes,
} from './oom-at-max-allowed.js';
export { capToLargestNode, largestNodeAllocatable } from './node-cap.js';
export { orphanedCheckpoints } from './orphaned-checkpoints.js';
export {
  recommendationEvent,
  type RecommendationEvent,
} from './recommendation-event.js';
