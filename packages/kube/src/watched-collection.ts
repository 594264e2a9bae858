import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeConnection } from './connection/kube-connection.js';
import { ListWatchCache, type WatchLike } from './list-watch-cache.js';
import type { GetJson } from './connection/kube-request.js';
import { DEFAULT_LIST_PAGE_SIZE, pagedList } from './paged-list.js';

export interface WatchedCollectionOptions<
  T extends KubernetesObject = KubernetesObject,
> {
  connection: KubeConnection;
  get: GetJson;
  /** The collection, e.g. `/api/v1/namespaces/shop/pods`. */
  path: string;
  fieldSelector?: string;
  /** Items a list page (`--list-page-size`); 0: one unpaginated list. Default 500, as client-go. */
  pageSize?: number;
  /** What is kept of each object (`ListWatchCacheOptions.reduce`); default: all but managedFields. */
  reduce?: (object: KubernetesObject) => T;
  onError: (error: unknown) => void;
  /** Called after every completed list (`ListWatchCacheOptions.onListed`). */
  onListed?: () => void;
  /** A watch replacement for tests; default: `kubeWatch(connection)`. */
  watch?: WatchLike;
}

/**
 * A list+watch cache of one API collection. The list is plain JSON GETs, a page at a time,
 * so listed objects have exactly the shape watched ones have (the generated clients would
 * turn timestamps into Dates on list only), and one helper serves every kind, including
 * kinds only known at run time.
 */
export function watchedCollection<T extends KubernetesObject>(
  options: WatchedCollectionOptions<T>,
): ListWatchCache<T> {
  const { path, fieldSelector, get } = options;
  const pageSize = options.pageSize ?? DEFAULT_LIST_PAGE_SIZE;
  return new ListWatchCache<T>({
    path,
    fieldSelector,
    list: (reduce) => pagedList({ get, path, fieldSelector, pageSize, reduce }),
    reduce: options.reduce,
    connection: options.connection,
    watch: options.watch,
    onError: options.onError,
    onListed: options.onListed,
  });
}
