import {
  currentContainerResources,
  type Pod,
  ResourceName,
} from '@tandem/vpa-api';

/** An OOM kill to feed to {@link ClusterModel.recordOom}. */
export interface ObservedOom {
  readonly namespace: string;
  readonly podName: string;
  readonly containerName: string;
  readonly timeMs: number;
  /** The memory request of the killed container, bytes. */
  readonly memoryBytes: number;
}

interface ContainerTermination {
  readonly reason?: string;
  readonly finishedAt?: string | null;
}

interface ContainerRunState {
  readonly running?: object | null;
  readonly terminated?: ContainerTermination | null;
}

/** The parts of a core/v1 ContainerStatus the OOM detection reads. */
export interface ObservedContainerStatus {
  readonly name: string;
  readonly restartCount?: number;
  readonly state?: ContainerRunState | null;
  readonly lastState?: ContainerRunState | null;
}

/** A pod whose container statuses carry their run state (what the informer delivers). */
export type ObservedPod = Pod & {
  readonly status?: { readonly containerStatuses?: ObservedContainerStatus[] };
};

const OOM_KILLED = 'OOMKilled';

/**
 * The OOM kills a pod update reveals, as upstream's pod informer finds them, for every
 * container present in both versions:
 * - a new kill: the container is now terminated as OOMKilled and was not terminated before
 *   (or has restarted since); the request is the new pod's, the time its `finishedAt`;
 * - a kill already restarted from: running before and now, restart count up, last state
 *   OOMKilled; the request is the old pod's, the time the last state's `finishedAt`.
 * Requests come from the container status when reported, else the spec. A kill without a
 * readable `finishedAt` cannot be placed in time and is skipped.
 */
export function oomsFromPodUpdate(
  oldPod: ObservedPod,
  newPod: ObservedPod,
): ObservedOom[] {
  const namespace = newPod.metadata?.namespace ?? '';
  const podName = newPod.metadata?.name ?? '';
  const oldStatuses = new Map(
    (oldPod.status?.containerStatuses ?? []).map((s) => [s.name, s]),
  );
  const ooms: ObservedOom[] = [];
  for (const current of newPod.status?.containerStatuses ?? []) {
    const previous = oldStatuses.get(current.name);
    if (previous === undefined) continue;
    const found =
      newKill(previous, current, newPod) ??
      restartedKill(previous, current, oldPod);
    if (found !== undefined) {
      ooms.push({ namespace, podName, containerName: current.name, ...found });
    }
  }
  return ooms;
}

type Kill = { timeMs: number; memoryBytes: number };

function newKill(
  previous: ObservedContainerStatus,
  current: ObservedContainerStatus,
  newPod: Pod,
): Kill | undefined {
  const terminated = current.state?.terminated;
  if (terminated?.reason !== OOM_KILLED) return undefined;
  if (previous.state?.terminated && !restarted(previous, current)) {
    return undefined;
  }
  return kill(terminated, newPod, current.name);
}

function restartedKill(
  previous: ObservedContainerStatus,
  current: ObservedContainerStatus,
  oldPod: Pod,
): Kill | undefined {
  const terminated = current.lastState?.terminated;
  if (
    !previous.state?.running ||
    !current.state?.running ||
    !restarted(previous, current) ||
    terminated?.reason !== OOM_KILLED
  ) {
    return undefined;
  }
  return kill(terminated, oldPod, current.name);
}

function restarted(
  previous: ObservedContainerStatus,
  current: ObservedContainerStatus,
): boolean {
  return (current.restartCount ?? 0) > (previous.restartCount ?? 0);
}

function kill(
  terminated: ContainerTermination,
  pod: Pod,
  containerName: string,
): Kill | undefined {
  const timeMs = Date.parse(terminated.finishedAt ?? '');
  if (Number.isNaN(timeMs)) return undefined;
  try {
    const request = currentContainerResources(pod, containerName).requests.get(
      ResourceName.memory,
    );
    return { timeMs, memoryBytes: Number(request?.value() ?? 0n) };
  } catch {
    return undefined; // a malformed request cannot be bumped from
  }
}
