import type { ResourceAmounts } from '@tandem/estimators';
import {
  type Container,
  currentResourcesObject,
  type OriginalResources,
  parseCpuMillicores,
  parseMemoryBytes,
  parseOriginalResources,
  type Pod,
  PodAnnotation,
  type ResourceList,
  ResourceName,
  isNativeSidecar,
  resourceListEntry,
  vpaContainerSpecs,
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
    // One pass, one object per container: every listed pod is read on a first cycle
    // (25,000 in the recommender-cycle bench), and the place objects, spread copies and
    // parsed maps of the general readers were a tenth of its pod loading's garbage.
    const containers = vpaContainerSpecs(pod).map((container) =>
      containerReading(
        pod,
        container,
        original?.get(container.name)?.requests ??
          container.resources?.requests,
      ),
    );
    const init = pod.spec.initContainers;
    return {
      ok: true,
      snapshot: {
        namespace,
        name,
        labels: pod.metadata?.labels ?? {},
        phase: pod.status?.phase ?? '',
        containers,
        initContainerNames:
          init === undefined || init.length === 0
            ? NO_INIT_CONTAINER_NAMES
            : init
                .filter((container) => !isNativeSidecar(container))
                .map((container) => container.name),
      },
    };
  } catch (error) {
    return invalid(`pod ${namespace}/${name}: ${(error as Error).message}`);
  }
}

/** Most pods have no init containers: one empty list for all of them. */
const NO_INIT_CONTAINER_NAMES: readonly string[] = Object.freeze([]);

/**
 * A container's memory request and declared requests. The current resources (the status's
 * if reported, else the spec's) are parsed whole, as `currentContainerResources` would,
 * so a malformed limit still makes the pod an error; only the memory request is kept.
 */
function containerReading(
  pod: Pod,
  container: Container,
  declaredRequests: ResourceList | undefined,
): PodSnapshot['containers'][number] {
  // In the general readers' order, so a pod with several malformed quantities names the same one.
  const declared = declaredOf(declaredRequests);
  const current = currentResourcesObject(pod, container.name);
  const memoryRequestBytes = Number(
    resourceListEntry(current?.requests, ResourceName.memory)?.value() ?? 0n,
  );
  resourceListEntry(current?.limits, ResourceName.memory);
  return declared === undefined
    ? { name: container.name, memoryRequestBytes }
    : { name: container.name, memoryRequestBytes, declared };
}

/** What the webhook recorded the pod declared; an unreadable record counts as none. */
function originalResources(pod: Pod): OriginalResources | undefined {
  const text = pod.metadata?.annotations?.[PodAnnotation.originalResources];
  if (text === undefined) return undefined;
  const parsed = parseOriginalResources(text);
  return parsed instanceof Error ? undefined : parsed;
}

/** Declared requests of both resources, or none (vivo then keeps upstream's numbers). */
function declaredOf(
  requests: ResourceList | undefined,
): ResourceAmounts | undefined {
  const cpu = requests?.[ResourceName.cpu];
  const memory = requests?.[ResourceName.memory];
  if (cpu === undefined || memory === undefined) return undefined;
  return { cpu: parseCpuMillicores(cpu), memory: parseMemoryBytes(memory) };
}

function invalid(message: string): PodSnapshotResult {
  return { ok: false, error: { kind: 'invalid-input', message } };
}
