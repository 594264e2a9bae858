export {
  DEFERRED_RESIZE_TIMEOUT_MS,
  IN_PROGRESS_RESIZE_TIMEOUT_MS,
  UPDATER_DEFAULTS,
} from './defaults.js';
export {
  isLivePod,
  podId,
  PodPhase,
  type ContainerResizePolicy,
  type PodCondition,
  type TerminatedState,
  type UpdaterContainer,
  type UpdaterContainerStatus,
  type UpdaterPod,
  type UpdaterPodSpec,
  type UpdaterPodStatus,
} from './updater-pod.js';
export {
  updaterActsOn,
  updaterStrategy,
  type UpdaterStrategy,
} from './update-mode.js';
export { isObserved, observedContainers } from './observed-containers.js';
export {
  applicableRecommendation,
  controlledEntries,
  updaterRecommendation,
  type ContainerRecommendations,
} from './controlled-recommendation.js';
export {
  resourcePriority,
  type ResourcePriority,
} from './resource-priority.js';
export { hadQuickOom, quickOomThresholdMs } from './quick-oom.js';
export { meetsEvictionRequirements } from './eviction-requirements.js';
export {
  assessPod,
  decidePodUpdate,
  type PodAssessment,
  type PodUpdateDecision,
  type PodUpdateInput,
  type UpdateThresholds,
} from './update-decision.js';
export {
  compareUpdatePriority,
  orderForUpdate,
  type UpdatePriority,
} from './priority-order.js';
export { hasLowerTarget, InfeasibleResizes } from './infeasible-resizes.js';
export {
  replicaOwner,
  replicaOwnerKey,
  ReplicaOwnerKind,
  type ReplicaOwner,
} from './replica-groups.js';
export {
  groupReplicas,
  type ReplicaGrouping,
  type ReplicaMembers,
} from './replica-grouping.js';
export {
  asksInPlaceBelowMinReplicas,
  IN_PLACE_BELOW_MIN_REPLICAS_ANNOTATION,
} from './in-place-below-min-replicas.js';
export {
  UpdateRestriction,
  type ReplicaGroupStats,
  type UpdateRestrictionInput,
  type UpdateRestrictionOptions,
} from './update-restriction.js';
export {
  isResizeOngoing,
  PodResizeCondition,
  PodResizeReason,
  readResizeState,
  type ResizeState,
  type ResizeStatus,
} from './resize-state.js';
export { resizeFallback, type ResizeFallback } from './resize-fallback.js';
export {
  decideInPlaceUpdate,
  type InPlaceAction,
  type InPlaceDecision,
  type InPlaceDecisionInput,
} from './in-place-decision.js';
export {
  DEFAULT_IN_PLACE_MEMORY_LIMIT_HEADROOM,
  describeMemoryLimitKept,
  guardMemoryShrink,
  type GuardedResize,
  type MemoryLimitKept,
  type MemoryLimitKeptReason,
} from './memory-shrink-rail.js';
export {
  containerResourceOperations,
  inPlaceResizePatch,
  inPlaceUpdatedAnnotationPatch,
} from './resize-patch.js';
export { podsByControllingVpa, type PodGroup } from './controlled-pods.js';
export {
  isAdmissionStatusFresh,
  type StatusLease,
} from './admission-status.js';
