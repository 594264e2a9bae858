import type { Quantity } from './quantity.js';
import { sortedEntries, type QuantityMap } from './resource-list.js';

/** Upstream's capping annotation texts; an annotation reads `<resource> <action>`. */
export const CappingAction = {
  toMinAllowed: 'capped to minAllowed',
  toMaxAllowed: 'capped to maxAllowed',
  toContainerLimit: 'capped to container limit',
  toLimitRangeMin: 'capped to fit Min in container LimitRange',
  toLimitRangeMax: 'capped to fit Max in container LimitRange',
} as const;
export type CappingAction = (typeof CappingAction)[keyof typeof CappingAction];

export interface Bounds {
  min: QuantityMap;
  max: QuantityMap;
  minAction: CappingAction;
  maxAction: CappingAction;
}

/**
 * Raises each value below its minimum to that minimum, then lowers each value above its
 * maximum to that maximum, in place. A zero bound means "no bound" (upstream ignores zero
 * minAllowed/maxAllowed). Returns an annotation per change, in resource-name order.
 */
export function applyBounds(values: QuantityMap, bounds: Bounds): string[] {
  const annotations: string[] = [];
  for (const [resource, value] of sortedEntries(values)) {
    const min = bounds.min.get(resource);
    const raised = isBound(min) && value.cmp(min) < 0 ? min : value;
    if (raised !== value) annotations.push(`${resource} ${bounds.minAction}`);
    const max = bounds.max.get(resource);
    const lowered = isBound(max) && raised.cmp(max) > 0 ? max : raised;
    if (lowered !== raised) annotations.push(`${resource} ${bounds.maxAction}`);
    values.set(resource, lowered);
  }
  return annotations;
}

function isBound(bound: Quantity | undefined): bound is Quantity {
  return bound !== undefined && !bound.isZero();
}
