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
    const namespace = pod.metadata?.namespace ?? '';
    if (!namespaces.has(namespace)) continue;
    const owner = controllingOwner(pod.metadata?.ownerReferences);
    if (owner === undefined) continue;
    const key = `${namespace}\u0000${owner.apiVersion ?? ''}\u0000${owner.kind}\u0000${owner.name}`;
    const group = byOwner.get(key) ?? { namespace, owner, pods: [] };
    group.pods.push(pod);
    byOwner.set(key, group);
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
