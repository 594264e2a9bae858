const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

/** Upstream updater flag defaults (`pkg/updater/config/config.go`), durations in milliseconds. */
export const UPDATER_DEFAULTS = Object.freeze({
  /** `--min-replicas`: a replica group with fewer live pods is left alone. */
  minReplicas: 2,
  /** `--eviction-tolerance`: the fraction of a group that may be disrupted at once. */
  evictionTolerance: 0.5,
  /** `--pod-update-threshold`: the smallest relative change worth an in-range update. */
  podUpdateThreshold: 0.1,
  /** `--in-recommendation-bounds-eviction-lifetime-threshold`: 12h. */
  podLifetimeThresholdMs: 12 * HOUR_MS,
  /** `--evict-after-oom-threshold`: 10m. */
  evictAfterOomThresholdMs: 10 * MINUTE_MS,
  /** `--in-place-skip-disruption-budget`. */
  inPlaceSkipDisruptionBudget: false,
});

/** `DeferredResizeUpdateTimeout`: a resize the kubelet defers this long falls back to eviction. */
export const DEFERRED_RESIZE_TIMEOUT_MS = 5 * MINUTE_MS;

/** `InProgressResizeUpdateTimeout`: a resize in progress this long falls back to eviction. */
export const IN_PROGRESS_RESIZE_TIMEOUT_MS = HOUR_MS;

/**
 * `defaults` with the overrides that are set; an override left `undefined` (say, a flag the
 * user did not give) keeps the default instead of blanking it.
 */
export function withDefaults<T extends object>(
  defaults: T,
  overrides: Partial<T> | undefined,
): T {
  // Called per pod per cycle: a plain loop, no intermediate arrays.
  const result = { ...defaults };
  for (const key in overrides) {
    const value = overrides[key];
    if (value !== undefined) result[key] = value;
  }
  return result;
}
