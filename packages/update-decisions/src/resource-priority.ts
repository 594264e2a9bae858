import {
  currentContainerResources,
  recommendationQuantities,
  type Pod,
  type Quantity,
  type VerticalPodAutoscaler,
  vpaContainers,
} from '@tandem/vpa-api';
import {
  controlledEntries,
  type ContainerRecommendations,
} from './controlled-recommendation.js';
import { isObserved, observedContainers } from './observed-containers.js';

/** How far a pod is from its recommendation (upstream's `PodPriority`). */
export interface ResourcePriority {
  /** Some container wants more of a resource than it requests, or requests none. */
  scaleUp: boolean;
  /** Some request lies below the lowerBound or above the upperBound, or is missing. */
  outsideRange: boolean;
  /**
   * Σ over resources of `|max(Σrequest, 1) − Σtarget| / max(Σrequest, 1)`, sums over the
   * pod's containers in milli-units (memory too). 0 when nothing would change.
   */
  diff: number;
}

/**
 * Upstream's `GetUpdatePriority` for one pod. Only containers listed in the pod's
 * `vpaObservedContainers` annotation (when present and valid) and controlled by the VPA
 * count; current requests are the container status's when reported, else the spec's.
 * `recommendation` is the processed one (`updaterRecommendation`). Throws `QuantityError`
 * for a malformed quantity.
 */
export function resourcePriority(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  recommendation: ContainerRecommendations | undefined,
): ResourcePriority {
  const observed = observedContainers(pod);
  const entries = controlledEntries(pod, vpa, recommendation);
  const totalRequested = new Map<string, bigint>();
  const totalRecommended = new Map<string, bigint>();
  let scaleUp = false;
  let outsideRange = false;
  for (const { container } of vpaContainers(pod)) {
    if (!isObserved(observed, container.name)) continue;
    const entry = entries.find(
      (candidate) => candidate.containerName === container.name,
    );
    if (entry === undefined) continue;
    const { requests } = currentContainerResources(pod, container.name);
    // The processed values the entry was formatted from, not its texts parsed again.
    const quantities = recommendationQuantities(entry);
    for (const resource of Object.keys(entry.target ?? {})) {
      const target = (quantities.target.get(resource) as Quantity).milliValue();
      addTo(totalRecommended, resource, target);
      const request = requests.get(resource);
      if (request === undefined) {
        // Upstream treats a missing request as 0 rather than the namespace default.
        scaleUp = true;
        outsideRange = true;
        continue;
      }
      addTo(totalRequested, resource, request.milliValue());
      if (target > request.milliValue()) scaleUp = true;
      const lowerBound = quantities.lowerBound?.get(resource);
      const upperBound = quantities.upperBound?.get(resource);
      if (
        (lowerBound !== undefined && request.cmp(lowerBound) < 0) ||
        (upperBound !== undefined && request.cmp(upperBound) > 0)
      ) {
        outsideRange = true;
      }
    }
  }
  let diff = 0;
  for (const [resource, recommended] of totalRecommended) {
    // Go converts the int64 sums to float64 here; Number() rounds the same way.
    const requested = Math.max(Number(totalRequested.get(resource) ?? 0n), 1);
    diff += Math.abs(requested - Number(recommended)) / requested;
  }
  return { scaleUp, outsideRange, diff };
}

function addTo(totals: Map<string, bigint>, resource: string, value: bigint) {
  totals.set(resource, (totals.get(resource) ?? 0n) + value);
}
