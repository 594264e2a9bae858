import type { KubernetesObject } from '@kubernetes/client-node';

/** The cache key of an object: `namespace/name`, or just `name` for cluster-scoped ones. */
export function keyOf(namespace: string | undefined, name: string): string {
  return namespace === undefined || namespace === ''
    ? name
    : `${namespace}/${name}`;
}

/** The cache key of an object from its metadata; throws if it has no name. */
export function objectKey(object: KubernetesObject): string {
  const name = object.metadata?.name;
  if (name === undefined || name === '') {
    throw new Error(
      `a ${object.kind ?? 'Kubernetes'} object without metadata.name cannot be cached`,
    );
  }
  return keyOf(object.metadata?.namespace, name);
}

/** The resourceVersion of an object, or undefined. */
export function resourceVersionOf(
  object: KubernetesObject,
): string | undefined {
  return object.metadata?.resourceVersion;
}
