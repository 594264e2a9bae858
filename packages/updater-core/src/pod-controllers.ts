import { controllingOwner, type ControllerReference } from '@tandem/admission';
import type { UpdaterPod } from '@tandem/update-decisions';

/**
 * How the cycle finds a top-most controller: `VpaTargetResolution.topMostController`. Its
 * API version is kept: a scalable owner's replicas are read through its `/scale`.
 */
export type TopMostControllerLookup = (
  namespace: string,
  owner: ControllerReference,
) => Promise<ControllerReference | undefined>;

/**
 * Each pod's top-most well-known or scalable controller, for `podsByControllingVpa`. Pods
 * are grouped by namespace and controlling owner, and each owner's chain is walked once:
 * thousands of pods share a few hundred ReplicaSets. Only pods of `namespaces` (those with
 * a VPA the updater acts on) are walked. A pod without a controlling owner, or whose chain
 * leads to none, is left out, and so controlled by no VPA; so is a pod whose chain cannot
 * be read, as upstream's `GetControllingVPAForPod` leaves it, which `onUnreadable` hears
 * once per owner.
 */
export async function podControllers(
  pods: readonly UpdaterPod[],
  namespaces: ReadonlySet<string>,
  topMostController: TopMostControllerLookup,
  onUnreadable: (
    namespace: string,
    owner: ControllerReference,
    error: unknown,
  ) => void,
): Promise<Map<UpdaterPod, ControllerReference>> {
  const byOwner = new Map<
    string,
    { namespace: string; owner: ControllerReference; pods: UpdaterPod[] }
  >();
  for (const pod of pods) {
    const owned = ownerOf(pod);
    if (owned === undefined || !namespaces.has(owned.namespace)) continue;
    const group = byOwner.get(owned.key);
    if (group === undefined)
      byOwner.set(owned.key, {
        namespace: owned.namespace,
        owner: owned.owner,
        pods: [pod],
      });
    else group.pods.push(pod);
  }
  const controllers = new Map<UpdaterPod, ControllerReference>();
  await Promise.all(
    [...byOwner.values()].map(async ({ namespace, owner, pods: owned }) => {
      let controller: ControllerReference | undefined;
      try {
        controller = await topMostController(namespace, owner);
      } catch (error) {
        onUnreadable(namespace, owner, error);
        return;
      }
      if (controller === undefined) return;
      for (const pod of owned) controllers.set(pod, controller);
    }),
  );
  return controllers;
}

interface PodOwner {
  namespace: string;
  owner: ControllerReference;
  /** Namespace, API version, kind and name in one string: the group's key. */
  key: string;
}

/**
 * Each pod object's controlling owner and group key, worked out once per object: the
 * caches replace a pod's object when the pod changes, and building the key for every pod
 * of the cluster every cycle was a tenth of a steady cycle. Null: no controlling owner.
 */
const podOwners = new WeakMap<UpdaterPod, PodOwner | null>();

function ownerOf(pod: UpdaterPod): PodOwner | undefined {
  let known = podOwners.get(pod);
  if (known === undefined) {
    const namespace = pod.metadata?.namespace ?? '';
    const owner = controllingOwner(pod.metadata?.ownerReferences);
    known =
      owner === undefined
        ? null
        : {
            namespace,
            owner,
            key: `${namespace}\u0000${owner.apiVersion ?? ''}\u0000${owner.kind}\u0000${owner.name}`,
          };
    podOwners.set(pod, known);
  }
  return known ?? undefined;
}
