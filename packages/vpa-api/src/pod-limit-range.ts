import { proportionalLimit } from './limits.js';
import { currentContainerResources, vpaContainers } from './pod-containers.js';
import { Quantity } from './quantity.js';
import type {
  CappedField,
  ParsedRecommendation,
} from './recommendation-values.js';
import { parseResourceList } from './resource-list.js';
import { scaleProportionally } from './scaling.js';
import { ResourceName, type LimitRangeItem, type Pod } from './types.js';

const ZERO = Quantity.fromValue(0n, 'DecimalSI');

/**
 * Makes the pod's totals respect a LimitRange of type Pod (upstream order: upperBound, then
 * target, then lowerBound; CPU before memory in each). Containers the VPA has no
 * recommendation for join with their current requests as their target, because the
 * LimitRange judges the whole pod (upstream's `insertRequestsForMissingRecommendations` in
 * `pkg/utils/vpa/capping.go`). Adjusts the given recommendations in place and returns
 * them followed by the containers that joined.
 */
export function capToPodLimitRange(
  recommendations: readonly ParsedRecommendation[],
  pod: Pod,
  podLimitRange: LimitRangeItem,
): ParsedRecommendation[] {
  const adjusted = [
    ...recommendations,
    ...requestsAsTargets(recommendations, pod),
  ];
  const upstreamOrder: CappedField[] = ['upperBound', 'target', 'lowerBound'];
  for (const field of upstreamOrder) {
    for (const resource of [ResourceName.cpu, ResourceName.memory]) {
      capFieldToPodLimitRange(adjusted, pod, podLimitRange, field, resource);
    }
  }
  return adjusted;
}

function requestsAsTargets(
  recommendations: readonly ParsedRecommendation[],
  pod: Pod,
): ParsedRecommendation[] {
  return vpaContainers(pod).flatMap(({ container }) => {
    if (recommendations.some((r) => r.containerName === container.name))
      return [];
    const { requests } = currentContainerResources(pod, container.name);
    // A copy: the values are scaled in place, and the current requests are shared.
    return requests.size > 0
      ? [{ containerName: container.name, target: new Map(requests) }]
      : [];
  });
}

/**
 * For one field and resource: sums the containers' values and the limits those values would
 * get (kept in proportion to the current limit-to-request ratios), then
 * - leaves everything alone if min ≤ both sums and the limit sum ≤ max;
 * - if the values sum below min, scales every value up by min/sum (CPU rounding up);
 * - otherwise scales every value by bound/limitSum (rounding down), which brings the limit
 *   sum onto the violated bound (max wins when both are violated).
 * Containers that had no value for the resource are left without one (upstream would write
 * a zero there).
 */
function capFieldToPodLimitRange(
  recommendations: ParsedRecommendation[],
  pod: Pod,
  podLimitRange: LimitRangeItem,
  field: CappedField,
  resource: string,
): void {
  const min = parseResourceList(podLimitRange.min).get(resource) ?? ZERO;
  const max = parseResourceList(podLimitRange.max).get(resource) ?? ZERO;
  const defaultLimit = parseResourceList(podLimitRange.default).get(resource);
  let sumLimit = ZERO;
  let sumValue = ZERO;
  const members: ParsedRecommendation[] = [];
  for (const { container } of vpaContainers(pod)) {
    const { requests, limits } = currentContainerResources(pod, container.name);
    const recommendation = recommendations.find(
      (r) => r.containerName === container.name,
    );
    if (recommendation) members.push(recommendation);
    const value = recommendation
      ? recommendation[field]?.get(resource)
      : requests.get(resource);
    const original = {
      request: requests.get(resource),
      limit: limits.get(resource),
      defaultLimit,
    };
    const { limit } = proportionalLimit(resource, original, value);
    sumLimit = sumLimit.add(limit ?? ZERO);
    sumValue = sumValue.add(value ?? ZERO);
  }
  const maxHolds = max.isZero() || max.cmp(sumLimit) >= 0;
  if (min.cmp(sumLimit) <= 0 && min.cmp(sumValue) <= 0 && maxHolds) return;
  if (min.cmp(sumValue) > 0 && !sumLimit.isZero()) {
    rescale(members, field, resource, sumValue, min, 'ceil');
    return;
  }
  if (sumLimit.isZero()) return;
  const bound = maxHolds ? min : max;
  rescale(members, field, resource, sumLimit, bound, 'floor');
}

function rescale(
  members: readonly ParsedRecommendation[],
  field: CappedField,
  resource: string,
  from: Quantity,
  to: Quantity,
  cpuRounding: 'floor' | 'ceil',
): void {
  for (const member of members) {
    const values = member[field];
    const value = values?.get(resource);
    if (values === undefined || value === undefined) continue;
    values.set(
      resource,
      scaleProportionally(resource, value, from, to, cpuRounding).quantity,
    );
  }
}
