import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeConnection } from '../connection/kube-connection.js';
import type { ListWatchCache, WatchLike } from '../list-watch-cache.js';
import { httpStatusOf } from '../api-errors.js';
import { awaitFirstLists } from '../first-lists.js';
import type { GetJson } from '../connection/kube-request.js';
import { watchedCollection } from '../watched-collection.js';
import {
  collectionPath,
  wellKnownTarget,
  type ControllerObject,
  type TargetObject,
  type WellKnownKind,
} from './well-known-kinds.js';

/**
 * How long a lookup waits, by default, for a kind's first list before the VPA is reported
 * unreadable: long enough for a cycle to ride out a slow first list. The webhook passes its
 * own, much shorter, deadline (a review must not outwait the API server's call timeout).
 */
export const TARGET_CACHE_SYNC_TIMEOUT_MS = 30_000;

export interface TargetCaches {
  /**
   * The well-known controller `namespace/name` from its kind's list+watch cache, or, with
   * `readMisses`, from the API server when the cache has not got it: a controller created
   * a moment ago (the ReplicaSet whose first pods are under review) may reach the API
   * server's other clients before this cache's watch delivers it, most of all while a
   * cache that has just listed is still opening its watch. Undefined when it does not
   * exist; throws when the cache has not synced in time or the read fails.
   */
  read(
    kind: WellKnownKind,
    namespace: string,
    name: string,
  ): Promise<TargetObject | undefined>;
  /** The well-known controller object itself, as listed (the updater reads its replicas). */
  object(
    kind: WellKnownKind,
    namespace: string,
    name: string,
  ): Promise<KubernetesObject | undefined>;
  /** Starts the kind's cache unless it runs already, without waiting for its first list. */
  start(kind: WellKnownKind): void;
  /**
   * Starts the kind's cache unless it runs already, and waits at most the sync timeout for
   * its first list; rejects with `ColdCacheError` after that.
   */
  synced(kind: WellKnownKind): Promise<void>;
  /** True when every cache started so far has completed its first list. */
  hasSynced(): boolean;
  stop(): Promise<void>;
}

interface Started {
  cache: ListWatchCache<KubernetesObject>;
  firstList: Promise<void>;
}

/**
 * One list+watch cache per well-known controller kind, in the recommender's namespace or
 * cluster-wide. A kind's cache starts on the first lookup of that kind, not at start-up:
 * upstream watches all seven kinds, but a cluster whose VPAs all target Deployments then
 * holds every ReplicaSet (one per Deployment revision) and every Job in memory for nothing.
 * The price is one list the first time a kind is met, which that cycle waits for.
 */
export function targetCaches({
  connection,
  get,
  namespace,
  onError,
  syncTimeoutMs = TARGET_CACHE_SYNC_TIMEOUT_MS,
  watch,
  listPageSize,
  readMisses = false,
}: {
  connection: KubeConnection;
  get: GetJson;
  namespace: string | undefined;
  onError: (kind: WellKnownKind, error: unknown) => void;
  syncTimeoutMs?: number;
  /** A watch replacement for tests; default: `kubeWatch(connection)`. */
  watch?: WatchLike;
  /** Items a list page (`--list-page-size`); 0: unpaginated. Default 500, as client-go. */
  listPageSize?: number;
  /** GET what a cache has not got (the webhook, whose pods' owners are seconds old). */
  readMisses?: boolean;
}): TargetCaches {
  const started = new Map<WellKnownKind, Started>();
  let stopped = false;

  const startCache = (kind: WellKnownKind): Started => {
    const cache = watchedCollection<KubernetesObject>({
      connection,
      get,
      path: collectionPath(kind, namespace),
      pageSize: listPageSize,
      watch,
      onError: (error) => onError(kind, error),
    });
    const firstList = cache.start();
    // Rejects only when stopped before the first list; nobody need be waiting then.
    firstList.catch(() => undefined);
    const entry = { cache, firstList };
    started.set(kind, entry);
    return entry;
  };

  const running = (kind: WellKnownKind): Started => {
    if (stopped) throw new Error('the target caches were stopped');
    return started.get(kind) ?? startCache(kind);
  };

  const synced = (kind: WellKnownKind) => {
    const entry = running(kind);
    return awaitFirstLists(
      () => (entry.cache.hasSynced ? undefined : kind),
      entry.firstList,
      syncTimeoutMs,
    );
  };

  const object = async (
    kind: WellKnownKind,
    objectNamespace: string,
    name: string,
  ) => {
    await synced(kind);
    return running(kind).cache.get(name, objectNamespace);
  };

  return {
    object,
    start(kind) {
      if (!stopped) running(kind);
    },
    synced,
    async read(kind, objectNamespace, name) {
      const cached = await object(kind, objectNamespace, name);
      const found =
        cached === undefined && readMisses
          ? await readMissed(get, kind, objectNamespace, name)
          : cached;
      return found === undefined
        ? undefined
        : wellKnownTarget(kind, found as ControllerObject);
    },
    hasSynced: () =>
      [...started.values()].every((entry) => entry.cache.hasSynced),
    async stop() {
      stopped = true;
      await Promise.all([...started.values()].map(({ cache }) => cache.stop()));
    },
  };
}

/** One object its cache has not got, read from the API server; undefined on 404. */
async function readMissed(
  get: GetJson,
  kind: WellKnownKind,
  namespace: string,
  name: string,
): Promise<KubernetesObject | undefined> {
  try {
    return (await get(
      `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`,
    )) as KubernetesObject;
  } catch (error) {
    if (httpStatusOf(error) === 404) return undefined;
    throw error;
  }
}
