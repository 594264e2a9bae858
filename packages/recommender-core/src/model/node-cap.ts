import type { V1Node } from '@kubernetes/client-node';
import {
  formatCpuMillicores,
  formatMemoryBytes,
  parseCpuMillicores,
  parseMemoryBytes,
  type RecommendedContainerResources,
  type ResourceList,
} from '@tandem/vpa-api';

/** What the node cap reads and writes: whole millicores and bytes. */
interface Units {
  readonly parse: (text: string) => number;
  readonly format: (amount: bigint) => string;
}

const UNITS: Readonly<Record<'cpu' | 'memory', Units>> = {
  cpu: { parse: parseCpuMillicores, format: formatCpuMillicores },
  memory: { parse: parseMemoryBytes, format: formatMemoryBytes },
};

const FIELDS = ['target', 'lowerBound', 'upperBound'] as const;

/**
 * The largest allocatable CPU and memory of the nodes a pod may be scheduled on (not
 * cordoned), each resource on its own: the most any pod can ask for and still fit somewhere.
 * Unreadable quantities are skipped; an empty list (no schedulable node) caps nothing.
 */
export function largestNodeAllocatable(nodes: readonly V1Node[]): ResourceList {
  const largest: ResourceList = {};
  for (const resource of ['cpu', 'memory'] as const) {
    let most: { amount: number; text: string } | undefined;
    for (const node of nodes) {
      if (node.spec?.unschedulable === true) continue;
      const text = node.status?.allocatable?.[resource];
      if (text === undefined) continue;
      const amount = readable(resource, text);
      if (amount !== undefined && (most === undefined || amount > most.amount))
        most = { amount, text };
    }
    if (most !== undefined) largest[resource] = most.text;
  }
  return largest;
}

/**
 * Tandem's `--cap-recommendation-at-largest-node`: the VPA's containers (one pod's worth)
 * scaled down by one factor per resource, so that their targets sum to at most the largest
 * node's allocatable, then each value capped at that allocatable. A pod of the recommended
 * size then fits on some node, where capping each container alone would still leave a pod
 * of two large containers Pending everywhere. One factor for target and bounds keeps
 * lowerBound ≤ target ≤ upperBound; `uncappedTarget` keeps what the workload asked for.
 * It runs after the VPA's policy (upstream's capping post-processor), so it wins over
 * minAllowed: a recommendation no node can hold helps nobody.
 */
export function capToLargestNode(
  recommendations: readonly RecommendedContainerResources[],
  allocatable: ResourceList,
): RecommendedContainerResources[] {
  let capped = recommendations;
  for (const resource of ['cpu', 'memory'] as const) {
    const text = allocatable[resource];
    const limit = text === undefined ? undefined : readable(resource, text);
    if (limit !== undefined) capped = capResource(capped, resource, limit);
  }
  return [...capped];
}

function capResource(
  recommendations: readonly RecommendedContainerResources[],
  resource: 'cpu' | 'memory',
  limitAmount: number,
): readonly RecommendedContainerResources[] {
  const amount = (text: string | undefined): bigint | undefined => {
    const value = text === undefined ? undefined : readable(resource, text);
    return value === undefined ? undefined : BigInt(value);
  };
  // The common case, every cycle for every VPA: the pod fits and no bound is past the node.
  // Bounds are ordered, so the upper bound alone tells; plain numbers are exact enough to
  // decide (safe integers), and BigInt is left for the pods that do get scaled.
  let sum = 0n;
  let fits = true;
  let total = 0;
  for (const { target, upperBound } of recommendations) {
    total += readable(resource, target[resource] ?? '0') ?? 0;
    const upper = upperBound?.[resource];
    if (upper !== undefined && (readable(resource, upper) ?? 0) > limitAmount)
      fits = false;
  }
  if (fits && total <= limitAmount) return recommendations;
  const limit = BigInt(limitAmount);
  for (const recommendation of recommendations)
    sum += amount(recommendation.target?.[resource]) ?? 0n;
  const scale = (value: bigint) =>
    sum > limit ? (value * limit) / sum : value;
  return recommendations.map((recommendation) => {
    let changed = false;
    const next: RecommendedContainerResources = { ...recommendation };
    for (const field of FIELDS) {
      const list = recommendation[field];
      const value = amount(list?.[resource]);
      if (list === undefined || value === undefined) continue;
      const scaled = scale(value);
      const bounded = scaled > limit ? limit : scaled;
      if (bounded === value) continue;
      next[field] = { ...list, [resource]: UNITS[resource].format(bounded) };
      changed = true;
    }
    return changed ? next : recommendation;
  });
}

function readable(
  resource: 'cpu' | 'memory',
  text: string,
): number | undefined {
  try {
    return UNITS[resource].parse(text);
  } catch {
    return undefined;
  }
}
