import { applyBounds, CappingAction, type Bounds } from './bounds.js';
import { boundaryRequest } from './limits.js';
import type { CurrentResources } from './pod-containers.js';
import type { Quantity } from './quantity.js';
import {
  CAPPED_FIELDS,
  type ParsedRecommendation,
} from './recommendation-values.js';
import {
  parseResourceList,
  sortedEntries,
  type QuantityMap,
} from './resource-list.js';
import {
  ControlledValues,
  ResourceName,
  type ContainerResourcePolicy,
  type LimitRangeItem,
} from './types.js';

export interface ContainerCappingContext {
  current: CurrentResources;
  policy: ContainerResourcePolicy | undefined;
  controlledValues: ControlledValues;
  /** The namespace's merged LimitRange item of type Container, if any. */
  containerLimitRange: LimitRangeItem | undefined;
}

/**
 * Upstream's per-container capping, in place, for target, lowerBound and upperBound alike:
 * 1. the container LimitRange, translated into request bounds that keep the container's
 *    limit-to-request ratio (so the resulting limit stays within the LimitRange);
 * 2. the VPA policy's minAllowed, then maxAllowed (running later, the policy wins);
 * 3. with RequestsOnly, the container's current limits (a request may not exceed its limit).
 * Returns the annotations for the target only, as upstream reports nothing for the bounds.
 */
export function capContainerRecommendation(
  recommendation: ParsedRecommendation,
  context: ContainerCappingContext,
): string[] {
  const limitRangeBounds = context.containerLimitRange
    ? limitRangeRequestBounds(context.current, context.containerLimitRange)
    : undefined;
  const policyBounds: Bounds | undefined = context.policy && {
    min: parseResourceList(context.policy.minAllowed),
    max: parseResourceList(context.policy.maxAllowed),
    minAction: CappingAction.toMinAllowed,
    maxAction: CappingAction.toMaxAllowed,
  };
  let targetAnnotations: string[] = [];
  for (const field of CAPPED_FIELDS) {
    const values = recommendation[field];
    if (values === undefined) continue;
    const annotations = [
      ...(limitRangeBounds ? applyBounds(values, limitRangeBounds) : []),
      ...(policyBounds ? applyBounds(values, policyBounds) : []),
      ...(context.controlledValues === ControlledValues.RequestsOnly
        ? capToLimits(values, context.current.limits)
        : []),
    ];
    if (field === 'target') targetAnnotations = annotations;
  }
  return targetAnnotations;
}

/**
 * The requests at which the container's limits (scaled with them) would reach the
 * LimitRange max or min. The minimum is also at least the LimitRange min itself, because
 * Kubernetes checks the request against it too.
 */
function limitRangeRequestBounds(
  current: CurrentResources,
  item: LimitRangeItem,
): Bounds {
  const lrMax = parseResourceList(item.max);
  const lrMin = parseResourceList(item.min);
  const defaults = parseResourceList(item.default);
  const min: QuantityMap = new Map();
  const max: QuantityMap = new Map();
  for (const resource of [ResourceName.cpu, ResourceName.memory]) {
    const original = {
      request: current.requests.get(resource),
      limit: current.limits.get(resource),
      defaultLimit: defaults.get(resource),
    };
    const maxRequest = boundaryRequest(resource, original, lrMax.get(resource));
    if (maxRequest !== undefined) max.set(resource, maxRequest);
    const minRequest = larger(
      boundaryRequest(resource, original, lrMin.get(resource)),
      lrMin.get(resource),
    );
    if (minRequest !== undefined) min.set(resource, minRequest);
  }
  return {
    min,
    max,
    minAction: CappingAction.toLimitRangeMin,
    maxAction: CappingAction.toLimitRangeMax,
  };
}

function larger(
  a: Quantity | undefined,
  b: Quantity | undefined,
): Quantity | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return b.cmp(a) > 0 ? b : a;
}

/** RequestsOnly: a request above the container's limit is lowered to the limit (millis compared). */
function capToLimits(
  values: QuantityMap,
  limits: ReadonlyMap<string, Quantity>,
): string[] {
  const annotations: string[] = [];
  for (const [resource, limit] of sortedEntries(limits)) {
    const value = values.get(resource);
    if (value !== undefined && value.milliValue() > limit.milliValue()) {
      values.set(resource, limit);
      annotations.push(`${resource} ${CappingAction.toContainerLimit}`);
    }
  }
  return annotations;
}
