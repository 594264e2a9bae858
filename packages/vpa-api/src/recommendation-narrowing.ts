import type {
  RecommendedContainerResources,
  ResourceList,
  VerticalPodAutoscaler,
} from './types.js';

/** The list with only the resources `keep` accepts. */
export function filterResources(
  list: ResourceList | undefined,
  keep: (name: string) => boolean,
): ResourceList {
  return Object.fromEntries(
    Object.entries(list ?? {}).filter(([name]) => keep(name)),
  );
}

/**
 * The container recommendation with its target and bounds holding only the resources `keep`
 * accepts (`uncappedTarget` untouched): how a recommendation is narrowed to what a policy
 * controls, or to what a pod lets the VPA set.
 */
export function filterRecommendedResources(
  entry: RecommendedContainerResources,
  keep: (name: string) => boolean,
): RecommendedContainerResources {
  const { target, lowerBound, upperBound } = entry;
  return {
    ...entry,
    target: filterResources(target, keep),
    ...(lowerBound && { lowerBound: filterResources(lowerBound, keep) }),
    ...(upperBound && { upperBound: filterResources(upperBound, keep) }),
  };
}

/** The VPA with its status recommendation's container entries replaced by `entries`. */
export function withContainerRecommendations(
  vpa: VerticalPodAutoscaler,
  entries: RecommendedContainerResources[],
): VerticalPodAutoscaler {
  return {
    ...vpa,
    status: {
      ...vpa.status,
      recommendation: {
        ...vpa.status?.recommendation,
        containerRecommendations: entries,
      },
    },
  };
}
