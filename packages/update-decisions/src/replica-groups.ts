import type { ControllerReference } from '@tandem/admission';
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

/** A well-known controller whose replicas are read from its own object. */
export interface KnownReplicaOwner {
  namespace: string;
  kind: ReplicaOwnerKind;
  name: string;
}

/**
 * Any other controller (an OpenKruise CloneSet, an operator's custom resource that
 * creates its pods itself): its configured replicas are `spec.replicas` of its `scale` subresource,
 * which is found through the API version.
 */
export interface ScalableReplicaOwner {
  namespace: string;
  kind: string;
  name: string;
  apiVersion: string;
  scalable: true;
}

/** The controller whose replicas a pod is one of. */
export type ReplicaOwner = KnownReplicaOwner | ScalableReplicaOwner;

/**
 * The replica group a pod belongs to, or undefined when the pod is never disrupted.
 *
 * - The pod's controlling owner (its first owner reference with `controller: true`) when
 *   it is of a kind the updater reads replicas of, as upstream's `getPodReplicaCreator`
 *   (`pkg/updater/restriction/pods_restriction_factory.go`) groups them.
 * - Otherwise the pod's top-most well-known or scalable controller (`topMost`, found by
 *   the owner-chain walk the VPA matching already made), read through its `/scale`: a
 *   CloneSet that creates its pods itself, or an operator's resource above a controller
 *   the updater does not know. Upstream groups such pods by their direct owner and counts
 *   0 configured replicas (`getReplicaCount` answers 0 for other kinds), which lets every
 *   pod of the group go at once; and it puts pods without a controller into one nameless
 *   group. Neither is reproduced: without a top-most controller that has an API version
 *   (so a `/scale` to read), the pod has no group.
 */
export function replicaOwner(
  pod: Pod,
  topMost?: ControllerReference,
): ReplicaOwner | undefined {
  const controller = pod.metadata?.ownerReferences?.find(
    (reference) => reference.controller === true,
  );
  if (controller === undefined) return undefined;
  const namespace = pod.metadata?.namespace ?? '';
  if (isReplicaOwnerKind(controller.kind))
    return { namespace, kind: controller.kind, name: controller.name };
  const apiVersion = topMost?.apiVersion ?? '';
  if (topMost === undefined || apiVersion === '') return undefined;
  return {
    namespace,
    kind: topMost.kind,
    name: topMost.name,
    apiVersion,
    scalable: true,
  };
}

export function replicaOwnerKey(owner: ReplicaOwner): string {
  const group = 'scalable' in owner ? `${owner.apiVersion}/` : '';
  return `${owner.namespace}/${group}${owner.kind}/${owner.name}`;
}

function isReplicaOwnerKind(kind: string): kind is ReplicaOwnerKind {
  return REPLICA_OWNER_KINDS.has(kind);
}
