import type { KubernetesObject } from '@kubernetes/client-node';
import type { CacheEventHandler } from './list-watch-cache.js';

/** The cache's objects of one namespace, kept up to date from its events. */
export interface NamespaceIndex<T extends KubernetesObject> {
  /** The objects of `namespace` now, in no particular order; a fresh array each call. */
  list(namespace: string): T[];
  /** Stops following the cache. */
  close(): void;
}

/**
 * Follows a cache's add/update/delete events to answer "the objects of one namespace"
 * without copying the whole cache: a request about one namespace then costs the size of
 * that namespace, not of the cluster. Subscribe before the cache starts, so its first list
 * arrives as events too.
 */
export function indexByNamespace<T extends KubernetesObject>(cache: {
  onEvent(handler: CacheEventHandler<T>): () => void;
}): NamespaceIndex<T> {
  const byNamespace = new Map<string, Map<string, T>>();
  const keyOf = (object: T) => ({
    namespace: object.metadata?.namespace ?? '',
    name: object.metadata?.name ?? '',
  });
  const unsubscribe = cache.onEvent((event) => {
    const { namespace, name } = keyOf(event.object);
    if (event.type === 'delete') {
      const objects = byNamespace.get(namespace);
      objects?.delete(name);
      if (objects?.size === 0) byNamespace.delete(namespace);
      return;
    }
    let objects = byNamespace.get(namespace);
    if (objects === undefined) {
      objects = new Map();
      byNamespace.set(namespace, objects);
    }
    objects.set(name, event.object);
  });
  return {
    list: (namespace) => [...(byNamespace.get(namespace)?.values() ?? [])],
    close: unsubscribe,
  };
}
