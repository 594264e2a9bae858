import {
  parseQuantity,
  type RecommendedContainerResources,
  type RecommendedPodResources,
  type ResourceList,
  type VerticalPodAutoscalerCondition,
  type VerticalPodAutoscalerStatus,
} from '@tandem/vpa-api';

/**
 * Whether `next` differs from the observed `previous` status the way Kubernetes' semantic
 * equality sees it: quantities compare by value (`1000m` equals `1`), times by instant,
 * absent strings, lists and counts equal their empty values; a missing recommendation
 * differs from an empty one. The loop writes the status only when this is true.
 */
export function statusChanged(
  previous: VerticalPodAutoscalerStatus | undefined,
  next: VerticalPodAutoscalerStatus,
): boolean {
  return !(
    sameRecommendation(previous?.recommendation, next.recommendation) &&
    sameList(previous?.conditions, next.conditions, sameCondition) &&
    (previous?.observedGeneration ?? 0) === (next.observedGeneration ?? 0)
  );
}

function sameRecommendation(
  a: RecommendedPodResources | undefined,
  b: RecommendedPodResources | undefined,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  return sameList(
    a.containerRecommendations,
    b.containerRecommendations,
    sameContainerRecommendation,
  );
}

function sameContainerRecommendation(
  a: RecommendedContainerResources,
  b: RecommendedContainerResources,
): boolean {
  return (
    a.containerName === b.containerName &&
    sameResources(a.target, b.target) &&
    sameResources(a.lowerBound, b.lowerBound) &&
    sameResources(a.upperBound, b.upperBound) &&
    sameResources(a.uncappedTarget, b.uncappedTarget)
  );
}

function sameResources(
  a: ResourceList | undefined,
  b: ResourceList | undefined,
): boolean {
  // A list the status shares with the observed one (see shareWithObserved) is that one.
  if (a === b) return true;
  const left = Object.entries(a ?? {});
  const right = b ?? {};
  if (left.length !== Object.keys(right).length) return false;
  return left.every(([resource, quantity]) => {
    const other = right[resource];
    return other !== undefined && sameQuantity(quantity, other);
  });
}

function sameQuantity(a: string, b: string): boolean {
  if (a === b) return true; // one text is one amount, or no amount at all
  try {
    return parseQuantity(a).cmp(parseQuantity(b)) === 0;
  } catch {
    return a === b; // text that is not a quantity can only equal itself
  }
}

function sameCondition(
  a: VerticalPodAutoscalerCondition,
  b: VerticalPodAutoscalerCondition,
): boolean {
  return (
    a.type === b.type &&
    a.status === b.status &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.message ?? '') === (b.message ?? '') &&
    (a.observedGeneration ?? 0) === (b.observedGeneration ?? 0) &&
    instant(a.lastTransitionTime) === instant(b.lastTransitionTime)
  );
}

/** Milliseconds of an RFC 3339 time, or its text if it does not parse; absent is the zero time. */
function instant(time: string | null | undefined): number | string {
  if (time == null || time === '') return Number.NEGATIVE_INFINITY;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? time : ms;
}

function sameList<T>(
  a: readonly T[] | undefined,
  b: readonly T[] | undefined,
  same: (x: T, y: T) => boolean,
): boolean {
  if (a === b) return true;
  const left = a ?? [];
  const right = b ?? [];
  return (
    left.length === right.length &&
    left.every((item, index) => {
      const other = right[index];
      return other !== undefined && same(item, other);
    })
  );
}
