import type {
  RecommendedContainerResources,
  RecommendedPodResources,
  ResourceList,
  VerticalPodAutoscalerCondition,
  VerticalPodAutoscalerStatus,
} from '@tandem/vpa-api';

/**
 * One copy of each text a cycle's statuses hold. At 100,000 VPAs a cycle formats 1.6 million
 * quantity strings of a few hundred distinct values (targets are histogram bucket bounds
 * times a margin): each status keeping its own copy made them the largest part of what a
 * cycle keeps. Made once a cycle; it stops taking new texts past `capacity`, so a cluster of
 * all-different values costs a bounded table, not one as large as its statuses.
 */
export class TextInterner {
  private readonly texts = new Map<string, string>();

  constructor(private readonly capacity = 65_536) {}

  intern(text: string): string {
    const known = this.texts.get(text);
    if (known !== undefined) return known;
    if (this.texts.size < this.capacity) this.texts.set(text, text);
    return text;
  }
}

/**
 * `next` with every part that equals the observed `previous` status's, text for text and in
 * the same key order, replaced by that part of `previous`, and its other quantity texts
 * taken from `texts`. Its JSON is `next`'s byte for byte; what changes is what the cycle keeps
 * until the status is written: conditions rarely change, a target often stays in its bucket,
 * and the previous parts are already held by the listed VPA.
 */
export function shareWithObserved(
  previous: VerticalPodAutoscalerStatus | undefined,
  next: VerticalPodAutoscalerStatus,
  texts: TextInterner,
): VerticalPodAutoscalerStatus {
  const conditions =
    next.conditions !== undefined &&
    previous?.conditions !== undefined &&
    sameItems(previous.conditions, next.conditions)
      ? previous.conditions
      : next.conditions;
  const recommendation = shareRecommendation(
    previous?.recommendation,
    next.recommendation,
    texts,
  );
  if (conditions === next.conditions && recommendation === next.recommendation)
    return next;
  // A copy keeps `next`'s key order; only the keys it holds are set again.
  const shared = { ...next };
  if (recommendation !== undefined) shared.recommendation = recommendation;
  if (conditions !== undefined) shared.conditions = conditions;
  return shared;
}

function shareRecommendation(
  previous: RecommendedPodResources | undefined,
  next: RecommendedPodResources | undefined,
  texts: TextInterner,
): RecommendedPodResources | undefined {
  const recommendations = next?.containerRecommendations;
  if (next === undefined || recommendations === undefined) return next;
  const before = previous?.containerRecommendations ?? [];
  const shared = recommendations.map((recommendation, index) =>
    shareContainer(before[index], recommendation, texts),
  );
  return previous !== undefined &&
    sameKeys(previous, next, false) &&
    shared.length === before.length &&
    shared.every((item, index) => item === before[index])
    ? previous
    : { ...next, containerRecommendations: shared };
}

function shareContainer(
  previous: RecommendedContainerResources | undefined,
  next: RecommendedContainerResources,
  texts: TextInterner,
): RecommendedContainerResources {
  const before =
    previous?.containerName === next.containerName ? previous : undefined;
  const target = sharedList(before?.target, next.target, texts);
  const lowerBound = sharedList(before?.lowerBound, next.lowerBound, texts);
  const upperBound = sharedList(before?.upperBound, next.upperBound, texts);
  const uncappedTarget = sharedList(
    before?.uncappedTarget,
    next.uncappedTarget,
    texts,
  );
  if (
    before !== undefined &&
    target === before.target &&
    lowerBound === before.lowerBound &&
    upperBound === before.upperBound &&
    uncappedTarget === before.uncappedTarget &&
    sameKeys(before, next, false)
  )
    return before;
  // A copy keeps `next`'s key order; only the keys it holds are set again.
  const shared = { ...next, target };
  if (lowerBound !== undefined) shared.lowerBound = lowerBound;
  if (upperBound !== undefined) shared.upperBound = upperBound;
  if (uncappedTarget !== undefined) shared.uncappedTarget = uncappedTarget;
  return shared;
}

/** `previous` when it holds the same texts in the same order, else `next` with interned texts. */
function sharedList<T extends ResourceList | undefined>(
  previous: ResourceList | undefined,
  next: T,
  texts: TextInterner,
): T {
  if (next === undefined) return next;
  if (previous !== undefined && sameKeys(previous, next, true))
    return previous as T;
  const interned: ResourceList = {};
  for (const resource in next) {
    const quantity = next[resource];
    if (quantity !== undefined) interned[resource] = texts.intern(quantity);
  }
  return interned as T;
}

/**
 * Where {@link sameKeys} lists the second object's keys: reused, because it runs about
 * two million times a cycle at 100,000 VPAs and a keys array each was most of its garbage.
 */
const keysOfSecond: string[] = [];

/**
 * The same keys in the same order (the order JSON writes them in), and with `values` each
 * holding the same primitive (strings, numbers, null; an object is never the same).
 */
function sameKeys(a: object, b: object, values: boolean): boolean {
  let count = 0;
  for (const key in b) {
    keysOfSecond[count] = key;
    count += 1;
  }
  let index = 0;
  for (const key in a) {
    if (index === count || key !== keysOfSecond[index]) return false;
    if (values) {
      const value: unknown = (a as Record<string, unknown>)[key];
      if (
        (typeof value === 'object' && value !== null) ||
        value !== (b as Record<string, unknown>)[key]
      )
        return false;
    }
    index += 1;
  }
  return index === count;
}

function sameItems(
  a: readonly VerticalPodAutoscalerCondition[],
  b: readonly VerticalPodAutoscalerCondition[],
): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined || !sameKeys(x, y, true))
      return false;
  }
  return true;
}
