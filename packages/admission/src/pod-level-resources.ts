import {
  podLevelResourceNames,
  type Pod,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { withControlledRecommendation } from './controlled-recommendation.js';

/**
 * The resources the VPA recommends for the pod's containers that the webhook leaves as
 * declared because the pod declares them at pod level (`spec.resources`): raising a
 * container above the pod-level value gets the pod rejected by the API server, and the VPA
 * does not recommend at pod level yet (docs/decisions/0016-pod-level-resources.md).
 * Empty when the pod declares no such resource the VPA controls.
 */
export function resourcesLeftAtPodLevel(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
): string[] {
  const atPodLevel = podLevelResourceNames(pod);
  if (atPodLevel.length === 0) return [];
  const entries =
    withControlledRecommendation(vpa).status?.recommendation
      ?.containerRecommendations ?? [];
  const recommended = new Set(
    entries
      .filter((entry) =>
        pod.spec.containers.some(({ name }) => name === entry.containerName),
      )
      .flatMap((entry) => Object.keys(entry.target ?? {})),
  );
  return atPodLevel.filter((name) => recommended.has(name));
}

/** Why those resources were not applied, for the warning `kubectl` prints. */
export function podLevelResourcesMessage(resources: readonly string[]): string {
  const names = resources.join(', ');
  return `pod-level resources set for ${names}: the containers' ${names} left as declared (the VPA recommends per container, and a container above the pod-level value would get the pod rejected)`;
}
