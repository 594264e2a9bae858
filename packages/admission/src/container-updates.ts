import {
  computeContainerResources,
  type LimitRange,
  type Pod,
  type ResourceList,
  type VerticalPodAutoscaler,
  type VpaContainer,
  vpaContainersByName,
  withoutPodLevelResources,
} from '@tandem/vpa-api';
import { withControlledRecommendation } from './controlled-recommendation.js';

/** What the webhook writes into one of `spec.containers` or a native sidecar. */
export interface ContainerUpdate {
  /**
   * `initContainers` for a native sidecar (plain init containers are never changed); absent,
   * or `containers`, for `spec.containers`.
   */
  field?: VpaContainer['field'];
  /** Position in that list of the pod spec. */
  index: number;
  /** Requests to set, by resource name. */
  requests: ResourceList;
  /** Limits to set, by resource name; empty to leave the limits alone. */
  limits: ResourceList;
  /** The container's part of `vpaUpdates`: capping and limit notes, then `cpu request`, … */
  items: string[];
}

/**
 * The requests and limits the VPA sets on a new pod's containers and native sidecars (§6.2
 * steps 3–4), after narrowing its recommendation to what its policy controls and leaving out
 * the resources the pod declares at pod level (`withoutPodLevelResources`). Containers with
 * nothing to set are left out. Values are listed by resource name, where upstream follows
 * Go's random map order. Throws `QuantityError` for a malformed quantity in the pod, VPA or
 * LimitRanges.
 */
export function containerUpdates(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[],
): ContainerUpdate[] {
  const computed = computeContainerResources(
    pod,
    withoutPodLevelResources(withControlledRecommendation(vpa), pod),
    limitRanges,
  );
  const places = vpaContainersByName(pod);
  return computed.flatMap((resources) => {
    const place = places.get(resources.containerName);
    const requests = sortedByName(resources.requests);
    const limits = sortedByName(resources.limits ?? {});
    const names = {
      requests: Object.keys(requests),
      limits: Object.keys(limits),
    };
    if (place === undefined) return [];
    if (names.requests.length === 0 && names.limits.length === 0) return [];
    return [
      {
        field: place.field,
        index: place.index,
        requests,
        limits,
        items: [
          ...resources.annotations,
          ...names.requests.map((name) => `${name} request`),
          ...names.limits.map((name) => `${name} limit`),
        ],
      },
    ];
  });
}

/** Upstream's `vpaUpdates` text: `Pod resources updated by <vpa>: container 0: …; container 1: …`. */
export function resourceUpdatesAnnotation(
  vpaName: string,
  updates: readonly ContainerUpdate[],
): string {
  return `Pod resources updated by ${vpaName}: ${describeUpdates(updates)}`;
}

/**
 * `container 0: cpu request, memory request; init-sidecar 1: …`: a native sidecar is named
 * by its index in `spec.initContainers`, as upstream's native-sidecar work writes it
 * (kubernetes/autoscaler#8498, `patch/resource_updates.go`).
 */
export function describeUpdates(updates: readonly ContainerUpdate[]): string {
  return updates
    .map((update) => `${updateTarget(update)}: ${update.items.join(', ')}`)
    .join('; ');
}

/** `container 0`, or `init-sidecar 1` for a native sidecar: what an update is written to. */
export function updateTarget(update: ContainerUpdate): string {
  return `${update.field === 'initContainers' ? 'init-sidecar' : 'container'} ${update.index}`;
}

/** The list with its resources in name order, as upstream writes patches and annotations. */
export function sortedByName(list: ResourceList): ResourceList {
  return Object.fromEntries(
    Object.entries(list).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
