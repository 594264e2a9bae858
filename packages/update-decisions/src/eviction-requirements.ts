import {
  currentContainerResources,
  EvictionChangeRequirement,
  recommendationQuantities,
  ResourceName,
  type EvictionRequirement,
  type Pod,
  type Quantity,
  type VerticalPodAutoscaler,
  vpaContainers,
} from '@tandem/vpa-api';
import {
  controlledEntries,
  type ContainerRecommendations,
} from './controlled-recommendation.js';

/**
 * Upstream's scaling-direction admission (`spec.updatePolicy.evictionRequirements`): the pod
 * may be updated when at least one container with a recommendation either lacks a CPU or a
 * memory request, or meets every requirement, where a requirement is met when at least one
 * of its resources moves in the stated direction (target above or below the request,
 * compared in milli-units, a missing value counting as 0). A VPA without `updatePolicy`
 * admits every pod. `recommendation` is the processed one.
 */
export function meetsEvictionRequirements(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  recommendation: ContainerRecommendations | undefined,
): boolean {
  const updatePolicy = vpa.spec.updatePolicy;
  if (updatePolicy === undefined) return true;
  const requirements = updatePolicy.evictionRequirements ?? [];
  const entries = controlledEntries(pod, vpa, recommendation);
  return vpaContainers(pod).some(({ container }) => {
    const entry = entries.find(
      (candidate) => candidate.containerName === container.name,
    );
    if (entry === undefined) return false;
    const { requests } = currentContainerResources(pod, container.name);
    if (!requests.has(ResourceName.cpu) || !requests.has(ResourceName.memory))
      return true;
    const { target } = recommendationQuantities(entry);
    return requirements.every((requirement) =>
      isMet(requirement, requests, target),
    );
  });
}

function isMet(
  requirement: EvictionRequirement,
  requests: ReadonlyMap<string, Quantity>,
  target: ReadonlyMap<string, Quantity>,
): boolean {
  return requirement.resources.some((resource) => {
    const requested = requests.get(resource)?.milliValue() ?? 0n;
    const recommended = target.get(resource)?.milliValue() ?? 0n;
    switch (requirement.changeRequirement) {
      case EvictionChangeRequirement.TargetHigherThanRequests:
        return recommended > requested;
      case EvictionChangeRequirement.TargetLowerThanRequests:
        return recommended < requested;
      default:
        return false;
    }
  });
}
