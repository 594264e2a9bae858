import {
  replicaOwner,
  replicaOwnerKey,
  type ReplicaOwner,
} from './replica-groups.js';
import { isResizeOngoing } from './resize-state.js';
import { isLivePod, isPending, podId, type UpdaterPod } from './updater-pod.js';

/** The live pods of one replica group, with the counts that depend on the pods alone. */
export interface ReplicaMembers {
  readonly owner: ReplicaOwner;
  readonly pods: readonly UpdaterPod[];
  readonly pending: number;
  /** Pods with a resize pending or in progress. */
  readonly resizing: number;
}

/**
 * A VPA's pods by replica group, before any count is read or any option applied: what
 * `UpdateRestriction.create` works out per pod. It depends on the pod objects and their
 * owners alone (nothing changes a pod object once made), so a caller that is handed the
 * same pods again may keep it: the updater's steady cycle, and the cycle after a new
 * recommendation, rebuilt it for every pod of the cluster.
 */
export interface ReplicaGrouping {
  /** The groups of the live pods, in the order their first pod comes. */
  readonly groups: readonly ReplicaMembers[];
  /** Each live grouped pod's group (`podId` → index into `groups`), the last one it is in. */
  readonly groupIndex: ReadonlyMap<string, number>;
  /**
   * The groups of a pod id found in more than one group (the same pod listed twice), in
   * order; empty for an API server's listing, where a namespace's pod names are unique.
   */
  readonly sharedIds: ReadonlyMap<string, readonly number[]>;
}

/** `pods` by replica group (`ownerOf`, default `replicaOwner`); pods not live are left out. */
export function groupReplicas(
  pods: readonly UpdaterPod[],
  ownerOf: (pod: UpdaterPod) => ReplicaOwner | undefined = replicaOwner,
): ReplicaGrouping {
  const members = new Map<
    string,
    { owner: ReplicaOwner; pods: UpdaterPod[] }
  >();
  for (const pod of pods) {
    if (!isLivePod(pod)) continue;
    const owner = ownerOf(pod);
    if (owner === undefined) continue;
    const key = replicaOwnerKey(owner);
    const group = members.get(key);
    if (group === undefined) members.set(key, { owner, pods: [pod] });
    else group.pods.push(pod);
  }
  const groups: ReplicaMembers[] = [];
  const groupIndex = new Map<string, number>();
  const sharedIds = new Map<string, number[]>();
  for (const { owner, pods: live } of members.values()) {
    const index = groups.length;
    groups.push({
      owner,
      pods: live,
      pending: countOf(live, isPending),
      resizing: countOf(live, isResizeOngoing),
    });
    for (const pod of live) {
      const id = podId(pod);
      const before = groupIndex.get(id);
      if (before !== undefined && before !== index) {
        const shared = sharedIds.get(id) ?? [before];
        shared.push(index);
        sharedIds.set(id, shared);
      }
      groupIndex.set(id, index);
    }
  }
  return { groups, groupIndex, sharedIds };
}

function countOf(
  pods: readonly UpdaterPod[],
  test: (pod: UpdaterPod) => boolean,
): number {
  let count = 0;
  for (const pod of pods) if (test(pod)) count += 1;
  return count;
}
