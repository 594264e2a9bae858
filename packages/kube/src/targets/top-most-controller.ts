import {
  KindNotServedError,
  NotScalableError,
  type ScaleTargetRef,
} from './scale-target.js';
import type { TargetReaders } from './target-resolver.js';
import { isWellKnownKind, type TargetObject } from './well-known-kinds.js';

/** An owner reference as the walk follows it: the API version matters only for `/scale`. */
export type ControllerRef = ScaleTargetRef;

/** One link of the owner chain: whether it counts as a controller, and its own controller. */
interface Link {
  wellKnownOrScalable: boolean;
  parent: ControllerRef | undefined;
}

/**
 * Upstream's `FindTopMostWellKnownOrScalable` (`pkg/target/controller_fetcher/
 * controller_fetcher.go`) as `FindParentControllerForPod` (`pkg/utils/vpa/api.go`) calls it
 * for a pod: from the pod's controlling owner up the chain of controlling owners, the last
 * (top-most) one that is a well-known controller or has a `/scale` subresource. The same
 * namespace throughout; kinds are compared without their API version.
 *
 * Resolves undefined when there is none: nothing in the chain counts, or a Node owns a link
 * (static pods; upstream skips Nodes before reading them and ignores that error). Rejects,
 * as upstream errs and then leaves the pod uncontrolled, when a link cannot be read: a
 * well-known controller absent from its cache, a scale GET failing other than 404, a kind
 * the API server does not serve, a cycle in the chain. The end of the chain is a link
 * without a controlling owner, a scalable object that no longer exists (404), or a served
 * kind without `/scale` (its owners cannot be read).
 */
export function topMostControllerFinder(
  readers: TargetReaders,
): (
  namespace: string,
  owner: ControllerRef,
) => Promise<ControllerRef | undefined> {
  return async (namespace, owner) => {
    let topMost: ControllerRef | undefined;
    const visited = new Set<string>();
    let current: ControllerRef | undefined = owner;
    while (current !== undefined) {
      if (current.kind === 'Node') return undefined;
      const key = refKey(current);
      if (visited.has(key))
        throw new Error('cycle detected in ownership chain');
      visited.add(key);
      const link = await linkOf(readers, namespace, current);
      if (link.wellKnownOrScalable) topMost = current;
      current = link.parent;
    }
    return topMost;
  };
}

/**
 * Reads one link once: upstream asks `isWellKnownOrScalable` and then `getParentOfController`,
 * both from the same caches, so one read answers both.
 */
async function linkOf(
  readers: TargetReaders,
  namespace: string,
  ref: ControllerRef,
): Promise<Link> {
  const { kind, name } = ref;
  if (isWellKnownKind(kind)) {
    const object = await readers.wellKnown(kind, namespace, name);
    if (object === undefined)
      throw new Error(`${kind} ${namespace}/${name} does not exist`);
    return { wellKnownOrScalable: true, parent: controllerOf(object) };
  }
  let scalable: TargetObject | undefined;
  try {
    scalable = await readers.scalable(ref, namespace);
  } catch (error) {
    if (
      error instanceof NotScalableError &&
      !(error instanceof KindNotServedError)
    )
      return { wellKnownOrScalable: false, parent: undefined };
    throw error;
  }
  return scalable === undefined
    ? { wellKnownOrScalable: false, parent: undefined }
    : { wellKnownOrScalable: true, parent: controllerOf(scalable) };
}

/** Upstream's `getOwnerController`: an object's first owner reference marked controller. */
function controllerOf(object: TargetObject): ControllerRef | undefined {
  const owner = object.ownerReferences?.find(
    (reference) => reference.controller === true,
  );
  return owner === undefined
    ? undefined
    : { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name };
}

/** Upstream keys its visited set by API version, kind and name (the namespace is fixed). */
function refKey({ apiVersion = '', kind, name }: ControllerRef): string {
  return `${apiVersion}\u0000${kind}\u0000${name}`;
}
