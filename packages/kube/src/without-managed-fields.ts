import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * The object without `metadata.managedFields`, the server-side apply bookkeeping that is
 * often the larger part of an object and that no Tandem app reads: what every cache keeps
 * unless given its own reducer (client-go's `cache.TransformStripManagedFields`).
 */
export function withoutManagedFields<T extends KubernetesObject>(object: T): T {
  if (object.metadata?.managedFields === undefined) return object;
  const metadata = { ...object.metadata };
  delete metadata.managedFields;
  return { ...object, metadata };
}
