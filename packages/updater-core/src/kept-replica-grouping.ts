import type { ControllerReference } from '@tandem/admission';
import {
  groupReplicas,
  replicaOwner,
  replicaOwnerKey,
  type PodGroup,
  type ReplicaGrouping,
  type ReplicaOwner,
  type UpdaterPod,
} from '@tandem/update-decisions';

/** A VPA's pods by replica group, with the owners whose configured replicas are read. */
export interface VpaReplicaGrouping {
  grouping: ReplicaGrouping;
  /**
   * The distinct owners of the VPA's pods, live or not, in the order their first pod
   * comes: each is asked for its configured replicas once per pass.
   */
  owners: readonly ReplicaOwner[];
}

/** The groups a grouping was worked out from, as they were then. */
interface Kept extends VpaReplicaGrouping {
  groups: { controller: ControllerReference; pods: UpdaterPod[] }[];
}

/**
 * The last grouping of each VPA's pods, filed under its first pod: a pod is controlled by
 * one VPA, and gone pods drop out with their objects.
 */
const kept = new WeakMap<UpdaterPod, Kept>();

/**
 * A VPA's pods (in groups of one top-most controller) by replica group (`groupReplicas`,
 * each pod's owner from `replicaOwner` with its group's controller) and their distinct
 * owners, kept while the VPA's pass is handed the same pod objects with the same
 * controllers: the caches replace a pod object when it changes, so an unchanged workload
 * is grouped once, not once per cycle (a `Map` entry and an owner object for every pod of
 * the cluster, each cycle).
 */
export function keptReplicaGrouping(
  groups: readonly PodGroup<ControllerReference>[],
): VpaReplicaGrouping {
  const first = groups[0]?.pods[0];
  if (first === undefined) return groupedAfresh(groups);
  const last = kept.get(first);
  if (last !== undefined && sameGroups(last.groups, groups)) return last;
  const grouped = groupedAfresh(groups);
  // A pod that led the VPA's list before may come later now: its entry would keep the
  // pods of its snapshot alive as long as it lives.
  for (const { pods } of groups)
    for (const pod of pods) if (pod !== first) kept.delete(pod);
  kept.set(first, {
    ...grouped,
    groups: groups.map(({ controller, pods }) => ({
      controller: { ...controller },
      pods: [...pods],
    })),
  });
  return grouped;
}

function groupedAfresh(
  groups: readonly PodGroup<ControllerReference>[],
): VpaReplicaGrouping {
  const ownerOfPod = new Map<UpdaterPod, ReplicaOwner | undefined>();
  for (const { controller, pods } of groups)
    for (const pod of pods) ownerOfPod.set(pod, replicaOwner(pod, controller));
  const owners = new Map<string, ReplicaOwner>();
  for (const owner of ownerOfPod.values())
    if (owner !== undefined) owners.set(replicaOwnerKey(owner), owner);
  return {
    grouping: groupReplicas(
      groups.length === 1
        ? (groups[0]?.pods ?? [])
        : groups.flatMap(({ pods }) => pods),
      (pod) => ownerOfPod.get(pod),
    ),
    owners: [...owners.values()],
  };
}

/** The same pod objects in the same groups, under controllers `replicaOwner` reads alike. */
function sameGroups(
  was: Kept['groups'],
  now: readonly PodGroup<ControllerReference>[],
): boolean {
  if (was.length !== now.length) return false;
  for (let index = 0; index < now.length; index += 1) {
    const before = was[index];
    const group = now[index];
    if (
      before === undefined ||
      group === undefined ||
      before.controller.kind !== group.controller.kind ||
      before.controller.name !== group.controller.name ||
      before.controller.apiVersion !== group.controller.apiVersion ||
      before.pods.length !== group.pods.length
    )
      return false;
    for (let at = 0; at < group.pods.length; at += 1)
      if (before.pods[at] !== group.pods[at]) return false;
  }
  return true;
}
