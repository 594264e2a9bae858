import type {
  V1Container,
  V1ObjectMeta,
  V1PodSpec,
} from '@kubernetes/client-node';
import type { SharePart } from './shared-parts.js';

/**
 * Building blocks of a cache's `reduce`: an app that keeps only what it reads of each
 * object (the adapter, the recommender) builds the kept object from these, so that a field
 * the source lacks stays absent instead of becoming an `undefined` property.
 */

/** `object` without its undefined properties. */
export function present<T extends object>(object: T): T {
  return Object.fromEntries(
    Object.entries(object).filter(([, value]) => value !== undefined),
  ) as T;
}

/** What the cache itself needs of any object: its key and its version. */
export function cacheMetadata(
  metadata: V1ObjectMeta | undefined,
): V1ObjectMeta {
  return present({
    name: metadata?.name,
    namespace: metadata?.namespace,
    resourceVersion: metadata?.resourceVersion,
  });
}

/** `part` shared when there is one, so that absent stays absent. */
export const sharedOrAbsent = <T extends object>(
  share: SharePart,
  part: T | undefined,
): T | undefined => (part === undefined ? undefined : share(part));

/**
 * A pod's cache metadata, its labels and, of its annotations, those named in `read`; every
 * other annotation (kubectl's last-applied configuration, often a pod's largest field) is
 * dropped. The labels and annotations are shared: a controller's pods carry the same.
 */
export function podMetadata(
  metadata: V1ObjectMeta | undefined,
  share: SharePart,
  read: readonly string[],
): V1ObjectMeta {
  const kept = read.flatMap((name) => {
    const value = metadata?.annotations?.[name];
    return value === undefined ? [] : [[name, value] as const];
  });
  return present({
    ...cacheMetadata(metadata),
    labels: sharedOrAbsent(share, metadata?.labels),
    annotations:
      kept.length === 0 ? undefined : share(Object.fromEntries(kept)),
  });
}

/**
 * A pod's spec reduced to each container's and init container's name, resources and
 * restart policy (which makes an init container a native sidecar), shared: a
 * controller's pods have the same.
 */
export function podContainerResources(
  spec: V1PodSpec | undefined,
  share: SharePart,
): V1PodSpec | undefined {
  return spec === undefined
    ? undefined
    : share(
        present({
          containers: spec.containers.map(containerResources),
          initContainers: spec.initContainers?.map(containerResources),
        }),
      );
}

const containerResources = (container: V1Container): V1Container =>
  present({
    name: container.name,
    resources: container.resources,
    restartPolicy: container.restartPolicy,
  });
