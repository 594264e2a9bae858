import type { Quantity } from './quantity.js';
import { parseResourceList } from './resource-list.js';
import {
  FeatureGate,
  type Container,
  type FeatureGates,
  type Pod,
  type ResourceRequirements,
} from './types.js';

/** Shared between callers (see `currentContainerResources`): read, never changed. */
export interface CurrentResources {
  readonly requests: ReadonlyMap<string, Quantity>;
  readonly limits: ReadonlyMap<string, Quantity>;
}

/** Where a container the VPA manages sits in the pod spec: the JSON Patch path's list and index. */
export interface VpaContainer {
  field: 'containers' | 'initContainers';
  index: number;
  container: Container;
}

/**
 * A native sidecar: an init container with `restartPolicy: Always`, which the kubelet keeps
 * running beside the app containers for the pod's life (Kubernetes SidecarContainers).
 */
export function isNativeSidecar(container: Container): boolean {
  return container.restartPolicy === 'Always';
}

/**
 * The containers a VPA recommends for, admits and updates: `spec.containers`, then the native
 * sidecars of `spec.initContainers` (AEP-8905,
 * `enhancements/8905-native-sidecar-support`). Plain init containers run to completion before
 * the app starts, so they are never in it, as upstream has always left them alone.
 */
export function vpaContainers(pod: Pod): VpaContainer[] {
  const sidecars = (pod.spec.initContainers ?? []).flatMap(
    (container, index) =>
      isNativeSidecar(container)
        ? [{ field: 'initContainers' as const, index, container }]
        : [],
  );
  return [
    ...pod.spec.containers.map((container, index) => ({
      field: 'containers' as const,
      index,
      container,
    })),
    ...sidecars,
  ];
}

/**
 * The containers of {@link vpaContainers} in the same order, without their places: the
 * pod's own list when it has no native sidecar, so reading every listed pod (the
 * recommender's first cycle: 25,000 pods in its bench) allocates nothing for it.
 */
export function vpaContainerSpecs(pod: Pod): readonly Container[] {
  const init = pod.spec.initContainers;
  if (init === undefined || !init.some(isNativeSidecar))
    return pod.spec.containers;
  return [...pod.spec.containers, ...init.filter(isNativeSidecar)];
}

/** `vpaContainers` by container name (names are unique across both lists). */
export function vpaContainersByName(pod: Pod): Map<string, VpaContainer> {
  return new Map(
    vpaContainers(pod).map((place) => [place.container.name, place]),
  );
}

/** Views already made, by pod object: see `withoutNativeSidecars`. */
const gateOffViews = new WeakMap<Pod, Pod>();

/**
 * The pod as a component with the `NativeSidecar` gate off sees it: its sidecars are plain
 * init containers, which the VPA never touches (upstream before AEP-8905). Only a view for
 * decisions; the submitted object is what patches apply to. The view of one pod object is
 * made once, so the caches keyed by pod object (the updater's evaluations and owners) keep
 * hitting cycle after cycle; a pod without sidecars is its own view.
 */
export function withoutNativeSidecars<P extends Pod>(pod: P): P {
  const init = pod.spec.initContainers;
  if (init === undefined || !init.some(isNativeSidecar)) return pod;
  const made = gateOffViews.get(pod);
  if (made !== undefined) return made as P;
  const view: P = {
    ...pod,
    spec: {
      ...pod.spec,
      initContainers: init.map(
        ({ restartPolicy: _, ...container }) => container,
      ),
    },
  };
  gateOffViews.set(pod, view);
  return view;
}

/**
 * The pod as a component decides on it: with `--feature-gates=NativeSidecar=true` its native
 * sidecars are managed like containers (AEP-8905); with the gate off (the default, as
 * upstream's alpha gate) they are plain init containers (`withoutNativeSidecars`).
 */
export function gatedNativeSidecars<P extends Pod>(
  pod: P,
  gates: FeatureGates,
): P {
  return gates[FeatureGate.NativeSidecar] === true
    ? pod
    : withoutNativeSidecars(pod);
}

/**
 * The requests and limits a container runs with now: those the kubelet reports in the
 * container status (in-place resize may have changed them; a native sidecar's is in
 * `initContainerStatuses`), else those in the pod spec. Names are unique across both lists.
 *
 * The last few `resources` objects parsed are kept with their answer, which is shared: an
 * evaluation asks about each of a pod's containers about six times in a row (capping,
 * limits, priority, eviction requirements), and parsing built two maps each time. Only a
 * few: kept for every pod of a cluster, the answers outlived the pods' listing (about
 * 200 MiB for the recommender's 500,000 containers). Nothing changes a pod object once
 * made (the caches replace it).
 */
export function currentContainerResources(
  pod: Pod,
  containerName: string,
): CurrentResources {
  const resources = currentResourcesObject(pod, containerName);
  if (resources === undefined) return NO_RESOURCES;
  const kept = recentResources.indexOf(resources);
  if (kept !== -1) return recentParsed[kept] ?? NO_RESOURCES;
  const parsed: CurrentResources = {
    requests: parseResourceList(resources.requests),
    limits: parseResourceList(resources.limits),
  };
  recentResources[nextSlot] = resources;
  recentParsed[nextSlot] = parsed;
  nextSlot = (nextSlot + 1) % RECENT_KEPT;
  return parsed;
}

/**
 * The unparsed `resources` object {@link currentContainerResources} reads: the container
 * status's, else the spec's; undefined when there is none, or a malformed object holds
 * null or a text there (nothing to read).
 */
export function currentResourcesObject(
  pod: Pod,
  containerName: string,
): ResourceRequirements | undefined {
  const named = ({ name }: { name: string }) => name === containerName;
  const reported = (
    pod.status?.containerStatuses?.find(named) ??
    pod.status?.initContainerStatuses?.find(named)
  )?.resources;
  const resources =
    reported ??
    (pod.spec.containers.find(named) ?? pod.spec.initContainers?.find(named))
      ?.resources;
  return typeof resources === 'object' && resources !== null
    ? resources
    : undefined;
}

const NO_RESOURCES: CurrentResources = {
  requests: new Map(),
  limits: new Map(),
};

/**
 * The `resources` objects `currentContainerResources` parsed last and their answers, in
 * a ring: four covers a pod with a few containers and sidecars asked about in turn.
 */
const RECENT_KEPT = 4;
const recentResources: object[] = [];
const recentParsed: CurrentResources[] = [];
let nextSlot = 0;
