import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey, resourceVersionOf } from './object-key.js';

/** What changed between the cache's content and a fresh list. */
export interface RelistDiff<T extends KubernetesObject> {
  added: T[];
  updated: { previous: T; object: T }[];
  /** The last known state of each object that is gone. */
  deleted: T[];
  /** The new content, keyed like the cache. */
  next: Map<string, T>;
}

/**
 * Compares the cached objects with a fresh list: objects only in the list are added,
 * objects in both whose resourceVersion differs are updated, cached objects missing from
 * the list are deleted. Objects with the same resourceVersion produce no event.
 */
export function diffRelist<T extends KubernetesObject>(
  previous: ReadonlyMap<string, T>,
  items: readonly T[],
): RelistDiff<T> {
  const next = new Map<string, T>();
  for (const item of items) next.set(objectKey(item), item);
  const added: T[] = [];
  const updated: { previous: T; object: T }[] = [];
  const deleted: T[] = [];
  for (const [key, object] of next) {
    const old = previous.get(key);
    if (old === undefined) added.push(object);
    else if (resourceVersionOf(old) !== resourceVersionOf(object))
      updated.push({ previous: old, object });
  }
  for (const [key, old] of previous) {
    if (!next.has(key)) deleted.push(old);
  }
  return { added, updated, deleted, next };
}
