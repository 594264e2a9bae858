import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeConnection } from './connection/kube-connection.js';
import { VPA_API_VERSION } from '@tandem/vpa-api';
import { kubeGetJson, type GetJson } from './connection/kube-request.js';
import type { ListWatchCache, WatchLike } from './list-watch-cache.js';
import {
  vpaTargetResolution,
  type VpaTargetResolution,
} from './targets/vpa-target-resolution.js';
import { watchedCollection } from './watched-collection.js';

/** The collections the recommender, the updater and the webhook cache, by the name errors carry. */
const COLLECTIONS = {
  vpa: {
    prefix: `/apis/${VPA_API_VERSION}`,
    resource: 'verticalpodautoscalers',
  },
  pod: { prefix: '/api/v1', resource: 'pods' },
  limitrange: { prefix: '/api/v1', resource: 'limitranges' },
  event: { prefix: '/api/v1', resource: 'events' },
  // Cluster-scoped: listed whole whatever the app's namespace (the recommender's node cap).
  node: { prefix: '/api/v1', resource: 'nodes', clusterScoped: true },
} as const satisfies Record<
  string,
  { prefix: string; resource: string; clusterScoped?: true }
>;

export type CachedCollection = keyof typeof COLLECTIONS;

export interface ClusterCaches {
  /**
   * A list+watch cache of `collection` in the app's scope, started by `start()`. Call it
   * before `start()`, and subscribe indexes before `start()` too, so the first list
   * arrives as events. `reduce` is what is kept of each object (default: all but
   * managedFields).
   */
  collection<T extends KubernetesObject>(
    collection: CachedCollection,
    fieldSelector?: string,
    reduce?: (object: KubernetesObject) => T,
  ): ListWatchCache<T>;
  /** The VPAs' targets from the same scope (well-known kinds cached, others via `/scale`). */
  targets: VpaTargetResolution;
  /** True once every collection and every target cache started so far has its first list. */
  hasSynced(): boolean;
  /** Starts every collection; resolves when each has completed its first list. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The caches an app reads the cluster from, in one namespace (`--vpa-object-namespace`) or
 * cluster-wide, built one way for every app: each collection is one list+watch of plain
 * JSON GETs, listed `listPageSize` items a page and kept without managedFields, each recovered error reaches `onError` with the cache's name (`pod-cache`,
 * `target-cache-ReplicaSet`), and readiness covers every cache, including target caches
 * started later.
 */
export function clusterCaches(options: {
  connection: KubeConnection;
  namespace: string | undefined;
  onError: (cache: string, error: unknown) => void;
  /** Default: `kubeGetJson(connection)`. */
  get?: GetJson;
  /** A watch replacement for tests; default: `kubeWatch(connection)`. */
  watch?: WatchLike;
  /** How long a target lookup waits for a cold target cache (`vpaTargetResolution`'s default). */
  targetSyncTimeoutMs?: number;
  /** Items a list page (`--list-page-size`); 0: unpaginated. Default 500, as client-go. */
  listPageSize?: number;
  /** GET a target controller its cache has not got yet (`targetCaches`; the webhook). */
  readTargetMisses?: boolean;
}): ClusterCaches {
  const {
    connection,
    namespace,
    onError,
    watch,
    targetSyncTimeoutMs,
    listPageSize,
    readTargetMisses,
  } = options;
  const get = options.get ?? kubeGetJson(connection);
  const scope = namespace === undefined ? '' : `/namespaces/${namespace}`;
  const built: ListWatchCache<KubernetesObject>[] = [];
  const targets = vpaTargetResolution({
    connection,
    get,
    namespace,
    watch,
    syncTimeoutMs: targetSyncTimeoutMs,
    listPageSize,
    readMisses: readTargetMisses,
    onError: (kind, error) => onError(`target-cache-${kind}`, error),
  });
  return {
    collection<T extends KubernetesObject>(
      collection: CachedCollection,
      fieldSelector?: string,
      reduce?: (object: KubernetesObject) => T,
    ) {
      const found: { prefix: string; resource: string; clusterScoped?: true } =
        COLLECTIONS[collection];
      const { prefix, resource } = found;
      const cache = watchedCollection<T>({
        connection,
        get,
        path: `${prefix}${found.clusterScoped ? '' : scope}/${resource}`,
        fieldSelector,
        pageSize: listPageSize,
        reduce,
        watch,
        onError: (error) => onError(`${collection}-cache`, error),
      });
      built.push(cache as unknown as ListWatchCache<KubernetesObject>);
      return cache;
    },
    targets,
    hasSynced: () =>
      built.every((cache) => cache.hasSynced) && targets.hasSynced(),
    async start() {
      await Promise.all(built.map((cache) => cache.start()));
    },
    async stop() {
      await Promise.all([
        ...built.map((cache) => cache.stop()),
        targets.stop(),
      ]);
    },
  };
}
