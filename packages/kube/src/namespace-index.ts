import type { KubernetesObject } from '@kubernetes/client-node';
import type { CacheEventHandler } from './list-watch-cache.js';

/** The cache's objects of one namespace, kept up to date from its events. */
export interface NamespaceIndex<T extends KubernetesObject> {
  /** The objects of `namespace` now, in no particular order; a fresh array each call. */
  list(namespace: string): T[];
  /**
   * A number that changes whenever an object of `namespace` is added, replaced or deleted,
   * and never comes back to a value it had: what is worked out from `list(namespace)` can
   * be kept while it stays the same. 0 for a namespace that holds nothing.
   */
  revision(namespace: string): number;
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
  // One counter for all namespaces, so a namespace emptied and filled again never meets
  // a revision it had before.
  const revisions = new Map<string, number>();
  let changes = 0;
  const keyOf = (object: T) => ({
    namespace: object.metadata?.namespace ?? '',
    name: object.metadata?.name ?? '',
  });
  const unsubscribe = cache.onEvent((event) => {
    const { namespace, name } = keyOf(event.object);
    if (event.type === 'delete') {
      const objects = byNamespace.get(namespace);
      if (objects?.delete(name) !== true) return;
      changes += 1;
      revisions.set(namespace, changes);
      if (objects.size === 0) {
        byNamespace.delete(namespace);
        revisions.delete(namespace);
      }
      return;
    }
    changes += 1;
    revisions.set(namespace, changes);
    let objects = byNamespace.get(namespace);
    if (objects === undefined) {
      objects = new Map();
      byNamespace.set(namespace, objects);
    }
    objects.set(name, event.object);
  });
  return {
    list: (namespace) => [...(byNamespace.get(namespace)?.values() ?? [])],
    revision: (namespace) => revisions.get(namespace) ?? 0,
    close: unsubscribe,
  };
}
