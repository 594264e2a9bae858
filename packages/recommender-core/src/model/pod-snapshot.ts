import {
  currentContainerResources,
  type Pod,
  ResourceName,
} from '@tandem/vpa-api';
import type { PodSnapshot } from './cluster-model.js';
import type { ModelError } from './model-result.js';

export type PodSnapshotResult =
  | { readonly ok: true; readonly snapshot: PodSnapshot }
  | { readonly ok: false; readonly error: ModelError };

/**
 * Reduces a listed pod to what the model tracks. Memory requests are whole bytes, taken from
 * the container status when the kubelet reports resources (in-place resize), else from the
 * spec, as upstream's pod lister does; a container without a request counts 0.
 */
export function podSnapshotFromPod(pod: Pod): PodSnapshotResult {
  const namespace = pod.metadata?.namespace;
  const name = pod.metadata?.name;
  if (!namespace || !name) {
    return invalid('a pod needs metadata.namespace and metadata.name');
  }
  try {
    const containers = pod.spec.containers.map((container) => ({
      name: container.name,
      memoryRequestBytes: Number(
        currentContainerResources(pod, container.name)
          .requests.get(ResourceName.memory)
          ?.value() ?? 0n,
      ),
    }));
    return {
      ok: true,
      snapshot: {
        namespace,
        name,
        labels: pod.metadata?.labels ?? {},
        phase: pod.status?.phase ?? '',
        containers,
        initContainerNames: (pod.spec.initContainers ?? []).map((c) => c.name),
      },
    };
  } catch (error) {
    return invalid(`pod ${namespace}/${name}: ${(error as Error).message}`);
  }
}

function invalid(message: string): PodSnapshotResult {
  return { ok: false, error: { kind: 'invalid-input', message } };
}
