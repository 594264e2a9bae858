import type {
  KubernetesObject,
  V1ContainerState,
  V1ContainerStatus,
  V1Pod,
  V1PodStatus,
} from '@kubernetes/client-node';
import {
  podContainerResources,
  podMetadata,
  present,
  type SharePart,
} from '@tandem/kube';
import { PodAnnotation } from '@tandem/vpa-api';

/** The webhook's record of the declared resources (`podSnapshotFromPod` reads it). */
const READ_ANNOTATIONS: readonly string[] = [PodAnnotation.originalResources];

/**
 * A pod as the recommender's cache keeps it: what the cycle reads of it and nothing else.
 * The recommender caches every running pod of the cluster, and a pod as the API server
 * lists it (environment, probes, volumes, kubectl's last-applied annotation, node and
 * scheduling fields) is about 12 KiB of heap (`npm run bench -- recommender-pod-cache`):
 * 1.1 GiB at 100,000 pods, most of the process. Kept:
 * - for `podSnapshotFromPod`: namespace, name, labels, the original-resources annotation,
 *   each container's and init container's name, resources and restart policy, the phase,
 *   and each container status's and init container status's resources (an in-place resize);
 * - for `oomsFromPodUpdate`: each container status's restart count and, of its state and
 *   last state, whether it runs and the termination's reason and finish time;
 * - for the cache: the resourceVersion.
 * Pods of one controller in the same state differ in their name and resourceVersion alone,
 * so everything else goes through `share` and is held once. Upstream's informer keeps whole
 * pods (`pkg/recommender/input/cluster_feeder.go`); what it reads is the same.
 */
export function recommenderPod(
  object: KubernetesObject,
  share: SharePart,
): V1Pod {
  const { metadata, spec, status } = object as V1Pod;
  return present({
    metadata: podMetadata(metadata, share, READ_ANNOTATIONS),
    spec: podContainerResources(spec, share),
    status: status === undefined ? undefined : share(podStatus(status)),
  });
}

function podStatus(status: V1PodStatus): V1PodStatus {
  return present({
    phase: status.phase,
    containerStatuses: status.containerStatuses?.map(containerStatus),
    initContainerStatuses: status.initContainerStatuses?.map(containerStatus),
  });
}

/** Lacks the fields V1ContainerStatus requires and the recommender never reads (image, ready). */
function containerStatus(status: V1ContainerStatus): V1ContainerStatus {
  return present({
    name: status.name,
    resources: status.resources,
    restartCount: status.restartCount,
    state: runState(status.state),
    lastState: runState(status.lastState),
  }) as V1ContainerStatus;
}

/**
 * Whether the container runs (its start time dropped, so the statuses of a controller's
 * running pods are equal and shared) and why and when it terminated.
 */
function runState(
  state: V1ContainerState | null | undefined,
): V1ContainerState | undefined {
  if (state === undefined || state === null) return undefined;
  const { running, terminated } = state;
  return present({
    running: running === undefined || running === null ? undefined : {},
    terminated:
      terminated === undefined || terminated === null
        ? undefined
        : (present({
            reason: terminated.reason,
            finishedAt: terminated.finishedAt,
          }) as V1ContainerState['terminated']),
  });
}
