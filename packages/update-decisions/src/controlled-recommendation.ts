import { withControlledRecommendation } from '@tandem/admission';
import {
  processRecommendationForPod,
  type LimitRange,
  type Pod,
  type ProcessedRecommendation,
  type RecommendedContainerResources,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';

/** Anything with per-container recommendations: the VPA status's or a processed one. */
export interface ContainerRecommendations {
  containerRecommendations?: readonly RecommendedContainerResources[];
}

/**
 * The recommendation the updater acts on for one pod (upstream's capping processor output):
 * narrowed to what the VPA's policy controls first, as the admission webhook does, then
 * capped by LimitRanges and the policy. Undefined when the VPA has neither a recommendation
 * nor a resource policy. Throws `QuantityError` for a malformed quantity.
 */
export function updaterRecommendation(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[] = [],
): ProcessedRecommendation | undefined {
  return processRecommendationForPod(
    pod,
    withControlledRecommendation(vpa),
    limitRanges,
  );
}

/**
 * `recommendation`'s entries with containers in mode Off dropped and only controlled
 * resources kept. Upstream's recommender never writes those, so its updater does not check;
 * a recommendation from elsewhere, or a policy edited since the last recommender cycle,
 * could otherwise have a pod evicted for a container or resource the VPA must not touch.
 */
export function controlledEntries(
  vpa: VerticalPodAutoscaler,
  recommendation: ContainerRecommendations | undefined,
): RecommendedContainerResources[] {
  const narrowed = withControlledRecommendation({
    ...vpa,
    status: {
      recommendation: {
        containerRecommendations: [
          ...(recommendation?.containerRecommendations ?? []),
        ],
      },
    },
  });
  return narrowed.status?.recommendation?.containerRecommendations ?? [];
}
