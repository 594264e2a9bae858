import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeConnection } from '../connection/kube-connection.js';
import type { VerticalPodAutoscaler, VpaTarget } from '@tandem/vpa-api';
import { kubeGetJson, type GetJson } from '../connection/kube-request.js';
import type { WatchLike } from '../list-watch-cache.js';
import { scaleTargets } from './scale-target.js';
import { targetCaches } from './target-caches.js';
import { targetResolver } from './target-resolver.js';
import {
  topMostControllerFinder,
  type ControllerRef,
} from './top-most-controller.js';
import { isWellKnownKind, type WellKnownKind } from './well-known-kinds.js';

/**
 * The caches a pod's owner-chain walk reads when its VPA targets a kind: the kind itself
 * and the well-known controllers that create its pods (a Deployment's pods belong to
 * ReplicaSets, a CronJob's to Jobs). Other kinds need only their own cache.
 */
const WALKED_KINDS: Partial<Record<WellKnownKind, readonly WellKnownKind[]>> = {
  Deployment: ['Deployment', 'ReplicaSet'],
  CronJob: ['CronJob', 'Job'],
};

function wellKnownKinds(kinds: Iterable<string>): Set<WellKnownKind> {
  return new Set([...kinds].filter(isWellKnownKind));
}

export interface VpaTargetResolution {
  /** The VPA's target selector, or why it is unsupported; never throws for a bad target. */
  resolve(vpa: VerticalPodAutoscaler): Promise<VpaTarget>;
  /** A well-known controller from the same caches (undefined when it does not exist). */
  controller(
    kind: WellKnownKind,
    namespace: string,
    name: string,
  ): Promise<KubernetesObject | undefined>;
  /**
   * A scalable controller's configured replicas, read now from its `scale` subresource
   * (`ScaleTargets.replicas`): the updater's replica groups of custom owners.
   */
  scaleReplicas(
    owner: ControllerRef,
    namespace: string,
  ): Promise<number | undefined>;
  /**
   * The pod's top-most well-known or scalable controller above its controlling `owner`
   * (`topMostControllerFinder`): undefined when there is none, rejects when the chain
   * cannot be read (`ColdCacheError` when a cache has not listed within the sync timeout).
   */
  topMostController(
    namespace: string,
    owner: ControllerRef,
  ): Promise<ControllerRef | undefined>;
  /**
   * Starts, without waiting, the caches that the pods of VPAs targeting these kinds will
   * need, so they are warm before the pods arrive (and readiness waits for them).
   */
  warmUp(targetKinds: Iterable<string>): void;
  /**
   * Waits, at most the sync timeout each, for the caches of the well-known kinds among
   * `kinds` (starting them if needed); rejects with `ColdCacheError`.
   */
  cachesSynced(kinds: Iterable<string>): Promise<void>;
  /** True when every target cache started so far has completed its first list (readiness). */
  hasSynced(): boolean;
  /**
   * Stops the target caches and the scale cache's background refresh; `resolve` then
   * reports every well-known target unreadable.
   */
  stop(): Promise<void>;
}

/**
 * Target caches + scale reader + resolver in one: resolve(vpa) → VpaTarget, hasSynced(), stop().
 * Well-known controllers come from lazily started list+watch caches (in `namespace`, or
 * cluster-wide when undefined), any other kind through its `scale` subresource (GET on first
 * use, then cached and refreshed in the background as upstream does: `scaleTargets`).
 * `onError` hears the caches' recovered errors, with the kind.
 */
export function vpaTargetResolution(options: {
  connection: KubeConnection;
  namespace: string | undefined;
  onError: (kind: string, error: unknown) => void;
  /** Default: `kubeGetJson(connection)`. */
  get?: GetJson;
  /** A watch replacement for tests; default: `kubeWatch(connection)`. */
  watch?: WatchLike;
  /**
   * How long a lookup waits for a target cache's first list; default
   * `TARGET_CACHE_SYNC_TIMEOUT_MS`. The webhook passes its `--cache-sync-deadline`.
   */
  syncTimeoutMs?: number;
  /** Items a list page (`--list-page-size`); 0: unpaginated. Default 500, as client-go. */
  listPageSize?: number;
  /** See `targetCaches`: GET a controller its cache has not got yet (the webhook). */
  readMisses?: boolean;
}): VpaTargetResolution {
  const get = options.get ?? kubeGetJson(options.connection);
  const caches = targetCaches({ ...options, get });
  const scales = scaleTargets({ get });
  const readers = { wellKnown: caches.read, scalable: scales.read };
  return {
    resolve: targetResolver(readers),
    topMostController: topMostControllerFinder(readers),
    scaleReplicas: scales.replicas,
    warmUp(targetKinds) {
      for (const kind of wellKnownKinds(targetKinds))
        for (const walked of WALKED_KINDS[kind] ?? [kind]) caches.start(walked);
    },
    async cachesSynced(kinds) {
      await Promise.all([...wellKnownKinds(kinds)].map(caches.synced));
    },
    controller: caches.object,
    hasSynced: caches.hasSynced,
    async stop() {
      await Promise.all([caches.stop(), scales.stop()]);
    },
  };
}
