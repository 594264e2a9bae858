export {
  DEFAULT_BACKOFF,
  backoffDelayMs,
  type BackoffOptions,
} from './backoff.js';
export { retryUntilDone } from './retry.js';
export {
  apiStatusOf,
  hasStatusCause,
  describeError,
  httpStatusOf,
  isGone,
} from './api-errors.js';
export {
  SERVICE_ACCOUNT_DIR,
  resolveKubeConfigSource,
  type KubeConfigSource,
  type LoadKubeConfigOptions,
} from './kubeconfig-source.js';
export {
  TOKEN_FILE_REREAD_MS,
  loadKubeConnection,
} from './connection/load-kube-connection.js';
export { keyOf, objectKey, resourceVersionOf } from './object-key.js';
export { diffRelist, type RelistDiff } from './relist-diff.js';
export { isWatchStale, stalenessCheckIntervalMs } from './staleness.js';
export {
  ListWatchCache,
  type CacheErrorContext,
  type CacheEvent,
  type CacheEventHandler,
  type ListWatchCacheOptions,
  type ListWatchCacheStatus,
  type WatchLike,
} from './list-watch-cache.js';
export {
  kubeConnectionOf,
  plainConnection,
  type KubeConnection,
} from './connection/kube-connection.js';
export {
  kubeGetJson,
  kubeRequest,
  kubeSendJson,
  openKubeRequest,
  type GetJson,
  type KubeRequest,
  type SendJson,
} from './connection/kube-request.js';
export { kubeWatch } from './connection/kube-watch.js';
export {
  watchedCollection,
  type WatchedCollectionOptions,
} from './watched-collection.js';
export {
  DEFAULT_LIST_PAGE_SIZE,
  EXPIRED_LIST_RESTARTS,
  pagedList,
  type PagedListOptions,
} from './paged-list.js';
export { withoutManagedFields } from './without-managed-fields.js';
export { sharedParts, type SharePart } from './shared-parts.js';
export {
  cacheMetadata,
  podContainerResources,
  podMetadata,
  present,
  sharedOrAbsent,
} from './reduced-parts.js';
export {
  MEMORY_RELEASE_DELAY_MS,
  lastResortCollection,
  releaseMemoryAfterLists,
} from './memory-release.js';
export { TtlCache } from './ttl-cache.js';
export {
  WELL_KNOWN_KINDS,
  collectionPath,
  groupVersionPath,
  isWellKnownKind,
  wellKnownTarget,
  type ControllerObject,
  type TargetObject,
  type WellKnownKind,
} from './targets/well-known-kinds.js';
export {
  DISCOVERY_TTL_MS,
  KindNotServedError,
  NotScalableError,
  scalableResource,
  scaleTargets,
  type ApiResourceList,
  type ScaleTargetRef,
  type ScaleTargets,
} from './targets/scale-target.js';
export {
  DEFAULT_SCALE_CACHE_TIMINGS,
  SCALE_CACHE_FRESHNESS_MS,
  SCALE_CACHE_JITTER_FACTOR,
  SCALE_CACHE_LIFETIME_MS,
  SCALE_CACHE_LOOP_PERIOD_MS,
  ScaleCache,
  type ScaleCacheTimings,
} from './targets/scale-cache.js';
export {
  TARGET_CACHE_SYNC_TIMEOUT_MS,
  targetCaches,
  type TargetCaches,
} from './targets/target-caches.js';
export {
  targetResolver,
  type TargetReaders,
} from './targets/target-resolver.js';
export {
  topMostControllerFinder,
  type ControllerRef,
} from './targets/top-most-controller.js';
export {
  vpaTargetResolution,
  type VpaTargetResolution,
} from './targets/vpa-target-resolution.js';
export {
  podMetricsSource,
  type PodContainerUsage,
} from './pod-metrics-source.js';
export { indexByNamespace, type NamespaceIndex } from './namespace-index.js';
export { awaitFirstLists, ColdCacheError } from './first-lists.js';
export {
  clusterCaches,
  type CachedCollection,
  type ClusterCaches,
} from './cluster-caches.js';
export { limitRequestRate } from './request-rate-limit.js';
export { TokenBucket } from './token-bucket.js';
export { LruCache } from './lru-cache.js';
export {
  COMBINED_MESSAGE_PREFIX,
  EVENT_CORRELATION_DEFAULTS,
  EventCorrelator,
  type CoreEvent,
  type EventCorrelationOptions,
  type EventSubject,
  type EventType,
  type EventWrite,
} from './event-correlation.js';
export {
  eventRecorder,
  type EventRecorder,
  type EventRecorderOptions,
  type QueuedEventRecorder,
} from './event-recorder.js';
