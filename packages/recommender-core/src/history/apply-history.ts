import type { ClusterModel } from '../model/index.js';
import type { ClusterHistory } from './cluster-history.js';

export interface AppliedHistory {
  /** Pods the model took (with the memory saver, pods no VPA selects are left out). */
  readonly pods: number;
  readonly containers: number;
  /** Samples the model accepted (it drops duplicates and out-of-order CPU samples). */
  readonly samples: number;
}

/**
 * Replays the history into the model as upstream's InitFromHistoryProvider does: each pod
 * with its last known labels and phase Unknown (it may no longer exist; the first cycle's
 * pod listing removes it again, while its aggregates keep the samples), each container with
 * no memory request, then the container's samples in time order.
 */
export function applyHistory(
  model: ClusterModel,
  history: ClusterHistory,
  nowMs: number,
): AppliedHistory {
  let pods = 0;
  let containers = 0;
  let samples = 0;
  for (const pod of history.values()) {
    const tracked = model.upsertPod(
      {
        namespace: pod.namespace,
        name: pod.name,
        labels: pod.labels,
        phase: 'Unknown',
        containers: [...pod.containers.keys()].map((name) => ({
          name,
          memoryRequestBytes: 0,
        })),
        initContainerNames: [],
      },
      nowMs,
    );
    if (!tracked) continue;
    pods += 1;
    for (const [container, containerSamples] of pod.containers) {
      containers += 1;
      for (const sample of containerSamples) {
        if (model.addSample(pod.namespace, pod.name, container, sample).ok)
          samples += 1;
      }
    }
  }
  return { pods, containers, samples };
}
