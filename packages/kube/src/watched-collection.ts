import type {
  KubeConfig,
  KubernetesListObject,
  KubernetesObject,
} from '@kubernetes/client-node';
import { ListWatchCache, type WatchLike } from './list-watch-cache.js';
import type { GetJson } from './kube-get.js';

export interface WatchedCollectionOptions {
  kubeConfig: KubeConfig;
  get: GetJson;
  /** The collection, e.g. `/api/v1/namespaces/shop/pods`. */
  path: string;
  fieldSelector?: string;
  onError: (error: unknown) => void;
  /** A `Watch` replacement for tests; default: client-node's, from `kubeConfig`. */
  watch?: WatchLike;
}

/**
 * A list+watch cache of one API collection. The list is a plain JSON GET, so listed objects
 * have exactly the shape watched ones have (the generated clients would turn timestamps
 * into Dates on list only), and one helper serves every kind, including kinds only known
 * at run time.
 */
export function watchedCollection<T extends KubernetesObject>(
  options: WatchedCollectionOptions,
): ListWatchCache<T> {
  const { path, fieldSelector, get } = options;
  const query =
    fieldSelector === undefined
      ? ''
      : `?fieldSelector=${encodeURIComponent(fieldSelector)}`;
  return new ListWatchCache<T>({
    path,
    fieldSelector,
    list: async () => (await get(`${path}${query}`)) as KubernetesListObject<T>,
    kubeConfig: options.kubeConfig,
    watch: options.watch,
    onError: options.onError,
  });
}
