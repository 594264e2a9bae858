import type { PodCondition, UpdaterPod } from './updater-pod.js';

/** Pod condition types the kubelet sets while an in-place resize is not finished. */
export const PodResizeCondition = {
  Pending: 'PodResizePending',
  InProgress: 'PodResizeInProgress',
} as const;

/** Condition reasons the kubelet uses for them. */
export const PodResizeReason = {
  Deferred: 'Deferred',
  Infeasible: 'Infeasible',
  Error: 'Error',
} as const;

/** Upstream's `ResizeStatus`: what the pod's resize conditions say. */
export type ResizeStatus =
  | 'None'
  | 'Deferred'
  | 'Infeasible'
  | 'InProgress'
  | 'Error'
  | 'Unknown';

export interface ResizeState {
  status: ResizeStatus;
  /** `lastTransitionTime` of the condition that decided the status, epoch ms, when known. */
  sinceMs?: number;
}

/**
 * Whether the pod has a resize that is pending or in progress. As upstream, only the first
 * of the two conditions present is consulted, and it must be True.
 */
export function isResizeOngoing(pod: UpdaterPod): boolean {
  const first = (pod.status?.conditions ?? []).find(
    (condition) =>
      condition.type === PodResizeCondition.Pending ||
      condition.type === PodResizeCondition.InProgress,
  );
  return first?.status === 'True';
}

/**
 * The pod's resize status (upstream `getResizeStatus`): `PodResizePending` decides when
 * present (Deferred, Infeasible, anything else Unknown); then `PodResizeInProgress` without
 * reason and message is InProgress, with reason Error is Error, anything else Unknown.
 */
export function readResizeState(pod: UpdaterPod): ResizeState {
  if (!isResizeOngoing(pod)) return { status: 'None' };
  const pending = conditionOf(pod, PodResizeCondition.Pending);
  if (pending !== undefined) {
    return withSince(pendingStatus(pending.reason), pending);
  }
  const inProgress = conditionOf(pod, PodResizeCondition.InProgress);
  if (inProgress === undefined) return { status: 'Unknown' };
  if (!inProgress.reason && !inProgress.message) {
    return withSince('InProgress', inProgress);
  }
  return withSince(
    inProgress.reason === PodResizeReason.Error ? 'Error' : 'Unknown',
    inProgress,
  );
}

function pendingStatus(reason: string | undefined): ResizeStatus {
  if (reason === PodResizeReason.Deferred) return 'Deferred';
  if (reason === PodResizeReason.Infeasible) return 'Infeasible';
  return 'Unknown';
}

function conditionOf(pod: UpdaterPod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((condition) => condition.type === type);
}

function withSince(status: ResizeStatus, condition: PodCondition): ResizeState {
  const sinceMs = Date.parse(condition.lastTransitionTime ?? '');
  return Number.isNaN(sinceMs) ? { status } : { status, sinceMs };
}
