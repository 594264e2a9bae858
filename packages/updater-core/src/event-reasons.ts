/**
 * The reasons of the events the updater writes, one place for all (README "Events"). The
 * first four are upstream's and keep upstream's names (pkg/updater/logic/updater.go,
 * `EvictPod` and `InPlaceUpdate`); the others tell why a pod whose recommendation says it
 * should change was left as it is this cycle, on the pod.
 */
export const UpdaterEventReason = {
  /** On the pod: evicted to apply its recommendation (upstream). */
  EvictedByVPA: 'EvictedByVPA',
  /** On the VPA: one of its pods evicted (upstream). */
  EvictedPod: 'EvictedPod',
  /** On the pod: resized in place (upstream). */
  InPlaceResizedByVPA: 'InPlaceResizedByVPA',
  /** On the VPA: one of its pods resized in place (upstream). */
  InPlaceResizedPod: 'InPlaceResizedPod',
  /** Its replica group cannot lose it now, or its resize is still under way. */
  UpdateWaiting: 'UpdateWaiting',
  /** Left alone until something changes (InPlace mode after an infeasible resize). */
  UpdateSkipped: 'UpdateSkipped',
  /** The eviction or resize rate limit had no token before the cycle's deadline. */
  UpdateRateLimited: 'UpdateRateLimited',
  /** A PodDisruptionBudget refused the eviction (HTTP 429); retried next cycle. */
  EvictionBlockedByBudget: 'EvictionBlockedByBudget',
  /** Warning: the API server refused the eviction. */
  EvictionFailed: 'EvictionFailed',
  /** Warning: the resize was refused or the node cannot hold it. */
  InPlaceResizeFailed: 'InPlaceResizeFailed',
  /**
   * A memory limit left out of an in-place resize: it would fall under the container's
   * working set plus headroom, or the working set is unknown (kubernetes/kubernetes#135670).
   */
  InPlaceMemoryLimitKept: 'InPlaceMemoryLimitKept',
  /**
   * Warning: a CPU startup boost that is over could not be ended (its annotation is broken,
   * or the resize was refused); retried next cycle, never by eviction.
   */
  UnboostFailed: 'UnboostFailed',
} as const;

export type UpdaterEventReason =
  (typeof UpdaterEventReason)[keyof typeof UpdaterEventReason];
