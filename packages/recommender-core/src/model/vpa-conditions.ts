import { formatCheckpointTime } from '@tandem/histogram';
import {
  ConditionStatus,
  ConditionType,
  type VerticalPodAutoscalerCondition,
} from '@tandem/vpa-api';

export const NO_PODS_MATCHED_REASON = 'NoPodsMatched';
export const NO_PODS_MATCHED_MESSAGE = 'No pods match this VPA object';

/** What the recommender learnt about one VPA in this cycle, which its conditions report. */
export interface ConditionInputs {
  /** The ConfigUnsupported message; undefined when the configuration is fine. */
  readonly unsupportedReason: string | undefined;
  readonly podsMatched: boolean;
  readonly hasRecommendation: boolean;
}

/**
 * The VPA's conditions after this cycle, sorted by type, starting from those it already had
 * (so conditions the recommender does not own pass through). A condition that keeps its
 * status keeps its lastTransitionTime; one that changes status gets `nowMs`.
 */
export function nextConditions(
  observed: readonly VerticalPodAutoscalerCondition[],
  inputs: ConditionInputs,
  nowMs: number,
): VerticalPodAutoscalerCondition[] {
  const conditions = new Map(observed.map((c) => [c.type, c]));
  const set = (
    type: ConditionType,
    status: boolean,
    reason: string,
    message: string,
  ) => {
    const statusText = status ? ConditionStatus.True : ConditionStatus.False;
    const previous = conditions.get(type);
    const lastTransitionTime =
      previous?.status === statusText
        ? previous.lastTransitionTime
        : formatCheckpointTime(nowMs);
    conditions.set(type, {
      type,
      status: statusText,
      ...(lastTransitionTime == null ? {} : { lastTransitionTime }),
      // Upstream's JSON omits empty reasons and messages.
      ...(reason === '' ? {} : { reason }),
      ...(message === '' ? {} : { message }),
    });
  };

  if (inputs.unsupportedReason === undefined) {
    conditions.delete(ConditionType.ConfigUnsupported);
  } else {
    set(ConditionType.ConfigUnsupported, true, '', inputs.unsupportedReason);
  }
  conditions.delete(ConditionType.ConfigDeprecated);

  const [reason, message] = inputs.podsMatched
    ? ['', '']
    : [NO_PODS_MATCHED_REASON, NO_PODS_MATCHED_MESSAGE];
  if (inputs.podsMatched) conditions.delete(ConditionType.NoPodsMatched);
  else set(ConditionType.NoPodsMatched, true, reason, message);
  if (inputs.hasRecommendation) {
    set(ConditionType.RecommendationProvided, true, '', '');
  } else {
    set(ConditionType.RecommendationProvided, false, reason, message);
  }
  return [...conditions.values()].sort((a, b) =>
    a.type < b.type ? -1 : a.type > b.type ? 1 : 0,
  );
}
