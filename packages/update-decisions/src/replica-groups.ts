import type { Pod } from '@tandem/vpa-api';

/** Controller kinds the updater groups pods by (upstream's `controllerKind`). */
export const ReplicaOwnerKind = {
  ReplicationController: 'ReplicationController',
  StatefulSet: 'StatefulSet',
  ReplicaSet: 'ReplicaSet',
  DaemonSet: 'DaemonSet',
  Job: 'Job',
} as const;
export type ReplicaOwnerKind =
  (typeof ReplicaOwnerKind)[keyof typeof ReplicaOwnerKind];

const REPLICA_OWNER_KINDS: ReadonlySet<string> = new Set(
  Object.values(ReplicaOwnerKind),
);

/** The controller whose replicas a pod is one of. */
export interface ReplicaOwner {
  namespace: string;
  kind: ReplicaOwnerKind;
  name: string;
}

/**
 * The pod's controlling owner (its first owner reference with `controller: true`) when it is
 * of a kind the updater knows how many replicas of to expect; otherwise undefined, and the
 * pod is never disrupted. Upstream also groups other kinds, counting 0 configured replicas,
 * which lets every pod of such a group go at once; and it puts pods without a controller
 * into one nameless group. Neither is reproduced.
 */
export function replicaOwner(pod: Pod): ReplicaOwner | undefined {
  const controller = pod.metadata?.ownerReferences?.find(
    (reference) => reference.controller === true,
  );
  if (controller === undefined || !isReplicaOwnerKind(controller.kind))
    return undefined;
  return {
    namespace: pod.metadata?.namespace ?? '',
    kind: controller.kind,
    name: controller.name,
  };
}

export function replicaOwnerKey(owner: ReplicaOwner): string {
  return `${owner.namespace}/${owner.kind}/${owner.name}`;
}

function isReplicaOwnerKind(kind: string): kind is ReplicaOwnerKind {
  return REPLICA_OWNER_KINDS.has(kind);
}
