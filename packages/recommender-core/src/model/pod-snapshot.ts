import type { ResourceAmounts } from '@tandem/estimators';
import {
  currentContainerResources,
  type OriginalResources,
  parseCpuMillicores,
  parseMemoryBytes,
  parseOriginalResources,
  type Pod,
  PodAnnotation,
  type ResourceList,
  ResourceName,
  isNativeSidecar,
  vpaContainers,
} from '@tandem/vpa-api';
import type { PodSnapshot } from './cluster-model.js';
import type { ModelError } from './model-result.js';

export type PodSnapshotResult =
  | { readonly ok: true; readonly snapshot: PodSnapshot }
  | { readonly ok: false; readonly error: ModelError };

/**
 * Reduces a listed pod to what the model tracks. Memory requests are whole bytes, taken from
 * the container status when the kubelet reports resources (in-place resize), else from the
 * spec, as upstream's pod lister does; a container without a request counts 0. Native
 * sidecars (init containers with `restartPolicy: Always`) are containers here, as
 * AEP-8905's `ClusterFeeder` adds them; other init containers are only named, so their
 * samples are refused. A caller with the `NativeSidecar` gate off hands in the pod through
 * `gatedNativeSidecars`.
 */
export function podSnapshotFromPod(pod: Pod): PodSnapshotResult {
  const namespace = pod.metadata?.namespace;
  const name = pod.metadata?.name;
  if (!namespace || !name) {
    return invalid('a pod needs metadata.namespace and metadata.name');
  }
  try {
    const original = originalResources(pod);
    const containers = vpaContainers(pod).map(({ container }) => ({
      name: container.name,
      ...declaredOf(
        original?.get(container.name)?.requests ??
          container.resources?.requests,
      ),
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
        initContainerNames: (pod.spec.initContainers ?? [])
          .filter((container) => !isNativeSidecar(container))
          .map((container) => container.name),
      },
    };
  } catch (error) {
    return invalid(`pod ${namespace}/${name}: ${(error as Error).message}`);
  }
}

/** What the webhook recorded the pod declared; an unreadable record counts as none. */
function originalResources(pod: Pod): OriginalResources | undefined {
  const text = pod.metadata?.annotations?.[PodAnnotation.originalResources];
  if (text === undefined) return undefined;
  const parsed = parseOriginalResources(text);
  return parsed instanceof Error ? undefined : parsed;
}

/** Declared requests of both resources, or nothing (vivo then keeps upstream's numbers). */
function declaredOf(requests: ResourceList | undefined): {
  declared?: ResourceAmounts;
} {
  const cpu = requests?.[ResourceName.cpu];
  const memory = requests?.[ResourceName.memory];
  if (cpu === undefined || memory === undefined) return {};
  return {
    declared: {
      cpu: parseCpuMillicores(cpu),
      memory: parseMemoryBytes(memory),
    },
  };
}

function invalid(message: string): PodSnapshotResult {
  return { ok: false, error: { kind: 'invalid-input', message } };
}
