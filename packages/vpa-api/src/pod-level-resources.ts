import {
  filterRecommendedResources,
  filterResources,
  withContainerRecommendations,
} from './recommendation-narrowing.js';
import type {
  Pod,
  RecommendedContainerResources,
  VerticalPodAutoscaler,
} from './types.js';

/**
 * The resources the pod declares at pod level (`spec.resources.requests` or `.limits`), by
 * name, sorted. The API server rejects a pod whose containers' requests for such a resource
 * add up to more than the pod-level request, or whose container limit exceeds the pod-level
 * limit (kubernetes/kubernetes `pkg/apis/core/validation/validation.go`,
 * `validatePodResourceConsistency`). The VPA recommends per container only, so Tandem
 * leaves these resources exactly as declared (docs/decisions/0016-pod-level-resources.md).
 * The pod the webhook sees is already defaulted: with pod-level limits, a resource the
 * containers request has its pod-level request filled in, and so counts here too.
 */
export function podLevelResourceNames(pod: Pod): string[] {
  const { requests, limits } = pod.spec.resources ?? {};
  const names = new Set([
    ...Object.keys(requests ?? {}),
    ...Object.keys(limits ?? {}),
  ]);
  return [...names].sort();
}

/**
 * The VPA with the resources the pod declares at pod level taken out of every container
 * recommendation (target, bounds and uncapped target), so that nothing computed from it
 * sets, compares or resizes them. The same object when the pod declares none.
 */
export function withoutPodLevelResources(
  vpa: VerticalPodAutoscaler,
  pod: Pod,
): VerticalPodAutoscaler {
  const excluded = podLevelResourceNames(pod);
  const entries = vpa.status?.recommendation?.containerRecommendations;
  if (excluded.length === 0 || !entries) return vpa;
  return withContainerRecommendations(
    vpa,
    entries.map((entry) => withoutResources(entry, excluded)),
  );
}

function withoutResources(
  entry: RecommendedContainerResources,
  excluded: readonly string[],
): RecommendedContainerResources {
  const keep = (name: string) => !excluded.includes(name);
  const { uncappedTarget } = entry;
  return {
    ...filterRecommendedResources(entry, keep),
    ...(uncappedTarget && {
      uncappedTarget: filterResources(uncappedTarget, keep),
    }),
  };
}
