import { parseQuantity } from './quantity.js';
import {
  LimitType,
  ResourceName,
  type LimitRange,
  type LimitRangeItem,
  type ResourceList,
} from './types.js';

/**
 * One LimitRange item with the combined effect of every item of `type` in a namespace, as
 * upstream's LimitRangeCalculator builds it: the lowest `max` and the highest `min` per
 * resource (CPU and memory), and the `default` of the last item that has one. Items with
 * neither max, min nor default are ignored; undefined when nothing applies.
 */
export function mergeLimitRangeItems(
  limitRanges: readonly LimitRange[],
  type: typeof LimitType.Container | typeof LimitType.Pod,
): LimitRangeItem | undefined {
  const items = limitRanges
    .flatMap((limitRange) => limitRange.spec.limits)
    .filter(
      (item) => item.type === type && (item.max || item.min || item.default),
    );
  if (items.length === 0) return undefined;
  const merged: LimitRangeItem = { type };
  for (const item of items) {
    if (item.default) merged.default = item.default;
    merged.max = mergeBound(merged.max, item.max, 'lowest');
    merged.min = mergeBound(merged.min, item.min, 'highest');
  }
  return merged;
}

function mergeBound(
  merged: ResourceList | undefined,
  next: ResourceList | undefined,
  keep: 'lowest' | 'highest',
): ResourceList | undefined {
  if (next === undefined) return merged;
  // The first list is taken whole; later ones only compete on CPU and memory, as upstream.
  if (merged === undefined) return { ...next };
  const result = { ...merged };
  for (const resource of [ResourceName.cpu, ResourceName.memory]) {
    const candidate = next[resource];
    if (candidate === undefined) continue;
    const current = result[resource];
    // On a tie the later item wins, which only matters for how the value is spelled.
    const order =
      current === undefined
        ? 0
        : parseQuantity(candidate).cmp(parseQuantity(current));
    if (
      current === undefined ||
      (keep === 'lowest' ? order <= 0 : order >= 0)
    ) {
      result[resource] = candidate;
    }
  }
  return result;
}
