import {
  ContainerScalingMode,
  FeatureGate,
  getContainerPolicy,
  type FeatureGates,
  type VerticalPodAutoscaler,
  vpaContainers,
} from '@tandem/vpa-api';
import { isObserved, observedContainers } from './observed-containers.js';
import {
  timeOrGoZero,
  type UpdaterContainerStatus,
  type UpdaterPod,
} from './updater-pod.js';

const OOM_KILLED = 'OOMKilled';

/**
 * How short a run that ended in an OOM kill must be to count as a quick OOM:
 * `spec.updatePolicy.evictAfterOOMSeconds` when the PerVPAConfig gate is on (upstream ignores
 * the field otherwise), else the `--evict-after-oom-threshold` value.
 */
export function quickOomThresholdMs(
  vpa: VerticalPodAutoscaler,
  flagThresholdMs: number,
  featureGates: FeatureGates = {},
): number {
  const seconds = vpa.spec.updatePolicy?.evictAfterOOMSeconds;
  if (seconds === undefined || featureGates[FeatureGate.PerVPAConfig] !== true)
    return flagThresholdMs;
  return seconds * 1000;
}

/**
 * Whether an observed container not in mode Off was last terminated by an OOM kill after
 * running for less than `thresholdMs` (`finishedAt − startedAt`, not the time since). Such
 * a pod is undersized now, so the lifetime and diff thresholds do not make it wait.
 */
export function hadQuickOom(
  pod: UpdaterPod,
  vpa: VerticalPodAutoscaler,
  thresholdMs: number,
): boolean {
  // Nearly every pod has no OOM-killed container: answered before reading its annotation
  // and containers, as this runs for every pod of every acted-on VPA each cycle.
  if (!anyOomKilled(pod)) return false;
  const observed = observedContainers(pod);
  // A native sidecar's status is among `initContainerStatuses`; a plain init container's
  // OOM never counts, its requests being none of the VPA's business.
  const managed = new Set(
    vpaContainers(pod).map(({ container }) => container.name),
  );
  const statuses = [
    ...(pod.status?.containerStatuses ?? []),
    ...(pod.status?.initContainerStatuses ?? []),
  ];
  return statuses.some((status) => {
    if (!managed.has(status.name)) return false;
    if (!isObserved(observed, status.name)) return false;
    if (getContainerPolicy(vpa, status.name)?.mode === ContainerScalingMode.Off)
      return false;
    const terminated = status.lastState?.terminated;
    if (terminated?.reason !== OOM_KILLED) return false;
    const ranForMs =
      timeOrGoZero(terminated.finishedAt) - timeOrGoZero(terminated.startedAt);
    return ranForMs < thresholdMs;
  });
}

function isOomKilled(status: UpdaterContainerStatus): boolean {
  return status.lastState?.terminated?.reason === OOM_KILLED;
}

function anyOomKilled(pod: UpdaterPod): boolean {
  return (
    pod.status?.containerStatuses?.some(isOomKilled) === true ||
    pod.status?.initContainerStatuses?.some(isOomKilled) === true
  );
}
