import {
  ContainerScalingMode,
  getContainerPolicy,
  filterRecommendedResources,
  getControlledResources,
  type VerticalPodAutoscaler,
  withContainerRecommendations,
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
  let narrowed = controlledByVpa.get(vpa);
  if (narrowed === undefined) {
    narrowed = narrowToPolicy(vpa);
    controlledByVpa.set(vpa, narrowed);
  }
  return narrowed;
}

/**
 * Each VPA object's narrowed form, worked out once: the webhook asks for it on every pod
 * review and the updater for every pod of the VPA, and a VPA object, as the caches hand
 * it out, never changes (a changed VPA is a new object). Callers never modify it.
 */
const controlledByVpa = new WeakMap<
  VerticalPodAutoscaler,
  VerticalPodAutoscaler
>();

function narrowToPolicy(vpa: VerticalPodAutoscaler): VerticalPodAutoscaler {
  const recommendations = vpa.status?.recommendation?.containerRecommendations;
  if (recommendations === undefined) return vpa;
  const controlled = recommendations.flatMap((entry) => {
    const policy = getContainerPolicy(vpa, entry.containerName);
    if (policy?.mode === ContainerScalingMode.Off) return [];
    const resources = getControlledResources(policy);
    return [
      filterRecommendedResources(entry, (name) => resources.includes(name)),
    ];
  });
  return withContainerRecommendations(vpa, controlled);
}
