export {
  DEFAULT_BACKOFF,
  backoffDelayMs,
  type BackoffOptions,
} from './backoff.js';
export {
  apiStatusOf,
  describeError,
  httpStatusOf,
  isGone,
} from './api-errors.js';
export {
  SERVICE_ACCOUNT_DIR,
  loadKubeConfig,
  resolveKubeConfigSource,
  type KubeConfigSource,
  type LoadKubeConfigOptions,
} from './kubeconfig.js';
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
  DEFAULT_LEADER_ELECTION_TIMINGS,
  RETRY_JITTER_FACTOR,
  acquiredLeaseSpec,
  leaseAvailability,
  leaseHolder,
  releasedLeaseSpec,
  stepDownReason,
  timeMs,
  validateTimings,
  type LeaderElectionTimings,
  type LeaseAvailability,
  type StepDownReason,
} from './lease-decisions.js';
export {
  LeaderElector,
  type LeaderElectorOptions,
  type LeaseClient,
} from './leader-elector.js';
