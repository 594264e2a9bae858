import {
  computeContainerResources,
  type LimitRange,
  type Pod,
  type ResourceList,
  type VerticalPodAutoscaler,
  withoutPodLevelResources,
} from '@tandem/vpa-api';
import { withControlledRecommendation } from './controlled-recommendation.js';

/** What the webhook writes into one of `spec.containers`. */
export interface ContainerUpdate {
  /** Position in `spec.containers` (init containers are never changed, as upstream). */
  index: number;
  /** Requests to set, by resource name. */
  requests: ResourceList;
  /** Limits to set, by resource name; empty to leave the limits alone. */
  limits: ResourceList;
  /** The container's part of `vpaUpdates`: capping and limit notes, then `cpu request`, … */
  items: string[];
}

/**
 * The requests and limits the VPA sets on a new pod's containers (§6.2 steps 3–4), after
 * narrowing its recommendation to what its policy controls and leaving out the resources
 * the pod declares at pod level (`withoutPodLevelResources`). Containers with nothing to set
 * are left out. Values are listed by resource name, where upstream follows Go's random map
 * order. Throws `QuantityError` for a malformed quantity in the pod, VPA or LimitRanges.
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
  const updates: ContainerUpdate[] = [];
  // Results come in pod order, one per container with a recommendation; walking forward
  // keeps the right index even if a name were repeated.
  const { containers } = pod.spec;
  let cursor = 0;
  for (const resources of computed) {
    while (
      cursor < containers.length &&
      containers[cursor]?.name !== resources.containerName
    ) {
      cursor += 1;
    }
    if (cursor >= containers.length) break;
    const index = cursor;
    cursor += 1;
    const requests = sortedByName(resources.requests);
    const limits = sortedByName(resources.limits ?? {});
    const names = {
      requests: Object.keys(requests),
      limits: Object.keys(limits),
    };
    if (names.requests.length === 0 && names.limits.length === 0) continue;
    updates.push({
      index,
      requests,
      limits,
      items: [
        ...resources.annotations,
        ...names.requests.map((name) => `${name} request`),
        ...names.limits.map((name) => `${name} limit`),
      ],
    });
  }
  return updates;
}

/** Upstream's `vpaUpdates` text: `Pod resources updated by <vpa>: container 0: …; container 1: …`. */
export function resourceUpdatesAnnotation(
  vpaName: string,
  updates: readonly ContainerUpdate[],
): string {
  return `Pod resources updated by ${vpaName}: ${describeUpdates(updates)}`;
}

/** `container 0: cpu request, memory request; container 2: …` */
export function describeUpdates(updates: readonly ContainerUpdate[]): string {
  return updates
    .map((update) => `container ${update.index}: ${update.items.join(', ')}`)
    .join('; ');
}

function sortedByName(list: ResourceList): ResourceList {
  return Object.fromEntries(
    Object.entries(list).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
