import { UPDATER_DEFAULTS } from '@tandem/update-decisions';
import {
  changedResources,
  describeResourceChanges,
  type VerticalPodAutoscalerStatus,
} from '@tandem/vpa-api';
import { RecommenderEventReason } from '../event-reasons.js';

export interface RecommendationEvent {
  reason: RecommenderEventReason;
  message: string;
}

/**
 * The event a newly written status earns on its VPA: `RecommendationProvided` for the
 * first recommendation, `RecommendationChanged` when some container's target moved by at
 * least `threshold` of its previous value (the updater's `--pod-update-threshold` default,
 * so a change reported here is one the updater may act on), none otherwise. Bounds alone
 * moving earn none: only the target is applied to pods. `strategy` is named when the VPA
 * chose one (`tandem.dev/strategy`).
 */
export function recommendationEvent(
  previous: VerticalPodAutoscalerStatus | undefined,
  next: VerticalPodAutoscalerStatus,
  strategy: string | undefined,
  threshold: number = UPDATER_DEFAULTS.podUpdateThreshold,
): RecommendationEvent | undefined {
  const before = previous?.recommendation?.containerRecommendations ?? [];
  const after = next.recommendation?.containerRecommendations ?? [];
  const by = strategy === undefined ? '' : ` (strategy ${strategy})`;
  if (after.length === 0) return undefined;
  if (before.length === 0)
    return {
      reason: RecommenderEventReason.RecommendationProvided,
      message: `First recommendation${by}: ${describeResourceChanges(
        after.flatMap(({ containerName, target }) =>
          changedResources(containerName, undefined, target),
        ),
      )}`,
    };
  const moved = after.flatMap(({ containerName, target }) =>
    changedResources(
      containerName,
      before.find((container) => container.containerName === containerName)
        ?.target,
      target,
      threshold,
    ),
  );
  if (moved.length === 0) return undefined;
  return {
    reason: RecommenderEventReason.RecommendationChanged,
    message: `Target moved by ${Math.round(threshold * 1000) / 10} % or more${by}: ${describeResourceChanges(moved)}`,
  };
}
