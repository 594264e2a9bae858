import {
  ContainerScalingMode,
  getContainerPolicy,
  getControlledResources,
  type RecommendedContainerResources,
  type ResourceList,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';

/**
 * The VPA with its recommendation narrowed to what its policy lets it control: no entry for
 * a container whose policy mode is Off, and only the `controlledResources` (default cpu and
 * memory) of the others. Upstream's recommender writes recommendations already narrowed,
 * and its admission controller relies on that; a policy edited since the last recommender
 * cycle, or another recommender, could otherwise have a pod changed against its policy.
 * `computeContainerResources` does not narrow, so the webhook does it first.
 */
export function withControlledRecommendation(
  vpa: VerticalPodAutoscaler,
): VerticalPodAutoscaler {
  const recommendation = vpa.status?.recommendation;
  const recommendations = recommendation?.containerRecommendations;
  if (recommendation === undefined || recommendations === undefined) return vpa;
  const controlled = recommendations.flatMap((entry) => {
    const policy = getContainerPolicy(vpa, entry.containerName);
    if (policy?.mode === ContainerScalingMode.Off) return [];
    return [narrowed(entry, getControlledResources(policy))];
  });
  return {
    ...vpa,
    status: {
      ...vpa.status,
      recommendation: {
        ...recommendation,
        containerRecommendations: controlled,
      },
    },
  };
}

function narrowed(
  entry: RecommendedContainerResources,
  resources: readonly string[],
): RecommendedContainerResources {
  const { target, lowerBound, upperBound } = entry;
  return {
    ...entry,
    target: only(target, resources),
    ...(lowerBound && { lowerBound: only(lowerBound, resources) }),
    ...(upperBound && { upperBound: only(upperBound, resources) }),
  };
}

function only(list: ResourceList, resources: readonly string[]): ResourceList {
  return Object.fromEntries(
    Object.entries(list ?? {}).filter(([name]) => resources.includes(name)),
  );
}
