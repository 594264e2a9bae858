import type { ContainerAnnotations } from './capping.js';
import { capContainerRecommendation } from './container-capping.js';
import { getContainerPolicy, getControlledValues } from './container-policy.js';
import { mergeLimitRangeItems } from './limit-range.js';
import { proportionalLimit } from './limits.js';
import {
  currentContainerResources,
  type CurrentResources,
  vpaContainers,
} from './pod-containers.js';
import { capToPodLimitRange } from './pod-limit-range.js';
import {
  formatKeptRecommendation,
  parseKeptRecommendation,
  type ParsedRecommendation,
} from './recommendation-values.js';
import {
  formatResourceList,
  parseResourceList,
  type QuantityMap,
} from './resource-list.js';
import {
  ControlledValues,
  LimitType,
  ResourceName,
  type ContainerResourcePolicy,
  type LimitRange,
  type Pod,
  type RecommendedContainerResources,
  type ResourceList,
  type VerticalPodAutoscaler,
} from './types.js';

/** The VPA's recommendation as it applies to one pod (upstream's capping processor output). */
export interface ProcessedRecommendation {
  /** One entry per recommended container present in the pod, target/bounds capped. */
  containerRecommendations: RecommendedContainerResources[];
  /** Container name → capping annotations of its target; containers without any are absent. */
  annotations: ContainerAnnotations;
}

/** What the admission controller or the updater sets on one container. */
export interface ContainerResources {
  containerName: string;
  requests: ResourceList;
  /** Limits to set; absent when the container's limits are to be left as they are. */
  limits?: ResourceList;
  /** Capping annotations, then limit annotations (the items of the `vpaUpdates` annotation). */
  annotations: string[];
}

/**
 * The processed recommendation for a pod (§6.2 step 3), shared by the admission controller
 * and the updater's priority calculation:
 * 1. a LimitRange of type Pod scales the containers' values so the pod's totals fit;
 * 2. per container present in the pod: container LimitRange bounds (keeping the
 *    limit-to-request ratio), then the VPA policy's minAllowed/maxAllowed, then with
 *    RequestsOnly the container's current limits.
 * Current requests and limits come from the container status when reported, else the spec.
 * Undefined when the VPA has neither a recommendation nor a resource policy.
 *
 * `limitRanges` are all LimitRange objects of the pod's namespace; they are merged as
 * upstream does (lowest max, highest min, last default). Throws `QuantityError` if a
 * quantity in the inputs is malformed.
 */
export function processRecommendationForPod(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[] = [],
): ProcessedRecommendation | undefined {
  const processed = processForPod(pod, vpa, limitRanges);
  if (processed === undefined) return undefined;
  return {
    containerRecommendations: processed.recommendations.map(
      formatKeptRecommendation,
    ),
    annotations: processed.annotations,
  };
}

/**
 * The requests and limits to set per container (§6.2 step 4), in pod order, for containers
 * (native sidecars after the app containers) that have a processed recommendation; empty when the VPA has no recommendation.
 * Requests are the processed targets. With RequestsAndLimits (the default) CPU and memory
 * limits follow the requests in the original limit-to-request ratio (see
 * `proportionalLimit`); if neither gets a limit, `limits` is absent and no limit annotation
 * is reported. With RequestsOnly limits are never written.
 *
 * For update mode Off, upstream applies none of this (only a startup boost); callers check
 * the mode. Throws `QuantityError` if a quantity in the inputs is malformed.
 */
export function computeContainerResources(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[] = [],
): ContainerResources[] {
  if (!vpa.status?.recommendation) return [];
  const processed = processForPod(pod, vpa, limitRanges);
  if (processed === undefined) return [];
  const defaultLimits = parseResourceList(
    mergeLimitRangeItems(limitRanges, LimitType.Container)?.default,
  );
  return vpaContainers(pod).flatMap(({ container }) => {
    const recommendation = processed.recommendations.find(
      (candidate) => candidate.containerName === container.name,
    );
    if (recommendation === undefined) return [];
    const requests = withoutEmptyName(recommendation.target);
    const controlledValues = getControlledValues(
      getContainerPolicy(vpa, container.name),
    );
    const limits =
      controlledValues === ControlledValues.RequestsAndLimits
        ? proportionalLimits(
            currentContainerResources(pod, container.name),
            requests,
            defaultLimits,
          )
        : undefined;
    return [
      {
        containerName: container.name,
        requests: formatResourceList(requests),
        ...(limits && { limits: formatResourceList(limits.values) }),
        annotations: [
          ...(processed.annotations[container.name] ?? []),
          ...(limits?.annotations ?? []),
        ],
      },
    ];
  });
}

/**
 * CPU and memory limits in proportion to the new requests, with upstream's notes on each
 * limit left unset or capped. Undefined when neither resource gets a limit: upstream then
 * leaves the limits alone and reports nothing.
 */
function proportionalLimits(
  current: CurrentResources,
  requests: QuantityMap,
  defaultLimits: QuantityMap,
): { values: QuantityMap; annotations: string[] } | undefined {
  const values: QuantityMap = new Map();
  const annotations: string[] = [];
  for (const resource of [ResourceName.cpu, ResourceName.memory]) {
    const original = {
      request: current.requests.get(resource),
      limit: current.limits.get(resource),
      defaultLimit: defaultLimits.get(resource),
    };
    const { limit, annotation } = proportionalLimit(
      resource,
      original,
      requests.get(resource),
    );
    if (limit !== undefined) values.set(resource, limit);
    if (annotation !== undefined) annotations.push(annotation);
  }
  return values.size > 0 ? { values, annotations } : undefined;
}

interface ProcessedForPod {
  recommendations: ParsedRecommendation[];
  annotations: ContainerAnnotations;
}

/**
 * The last processing of each pod object, with the VPA and LimitRanges it was for: the
 * updater processes a pod shape's recommendation for its priority, then, for a pod it
 * resizes, again for the patch (`computeContainerResources`). The answer depends on these
 * three objects alone, which nothing changes once made, and callers only read it.
 */
const lastProcessed = new WeakMap<
  Pod,
  {
    vpa: VerticalPodAutoscaler;
    limitRanges: readonly LimitRange[];
    processed: ProcessedForPod | undefined;
  }
>();

function processForPod(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[],
): ProcessedForPod | undefined {
  const last = lastProcessed.get(pod);
  if (last?.vpa === vpa && last.limitRanges === limitRanges)
    return last.processed;
  const processed = processForPodAfresh(pod, vpa, limitRanges);
  lastProcessed.set(pod, { vpa, limitRanges, processed });
  return processed;
}

function processForPodAfresh(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[],
): ProcessedForPod | undefined {
  const recommendation = vpa.status?.recommendation;
  if (recommendation === undefined && vpa.spec.resourcePolicy === undefined)
    return undefined;
  const entries = recommendation?.containerRecommendations ?? [];
  const podLimitRange = mergeLimitRangeItems(limitRanges, LimitType.Pod);
  const containerLimitRange = mergeLimitRangeItems(
    limitRanges,
    LimitType.Container,
  );
  if (podLimitRange === undefined && containerLimitRange === undefined)
    return processedByPolicy(pod, vpa, entries);
  const parsed = entries.map(parseKeptRecommendation);
  const podAdjusted = podLimitRange
    ? capToPodLimitRange(parsed, pod, podLimitRange)
    : parsed;
  const annotations: ContainerAnnotations = {};
  const managed = vpaContainers(pod);
  const recommendations = podAdjusted.filter((candidate) =>
    managed.some(({ container }) => container.name === candidate.containerName),
  );
  for (const candidate of recommendations) {
    const policy = getContainerPolicy(vpa, candidate.containerName);
    const notes = capContainerRecommendation(candidate, {
      current: currentContainerResources(pod, candidate.containerName),
      policy,
      controlledValues: getControlledValues(policy),
      containerLimitRange,
    });
    if (notes.length > 0) annotations[candidate.containerName] = notes;
  }
  return { recommendations, annotations };
}

/**
 * `processForPodAfresh` without LimitRanges. A container's capping then reads the pod only
 * with RequestsOnly (its current limits); otherwise the capped entry depends on the entry
 * and the container's policy alone, and is worked out once per entry object and VPA
 * (`keptCapping`): the updater processes each VPA's recommendation for every pod shape of
 * the VPA, the webhook for every pod it admits.
 */
function processedByPolicy(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  entries: readonly RecommendedContainerResources[],
): ProcessedForPod {
  const managed = vpaContainers(pod);
  const recommendations: ParsedRecommendation[] = [];
  const annotations: ContainerAnnotations = {};
  for (const entry of entries) {
    const name = entry.containerName;
    if (!managed.some(({ container }) => container.name === name)) continue;
    const policy = getContainerPolicy(vpa, name);
    const controlledValues = getControlledValues(policy);
    const capped =
      controlledValues === ControlledValues.RequestsOnly
        ? cappedEntry(
            entry,
            policy,
            controlledValues,
            currentContainerResources(pod, name),
          )
        : keptCapping(entry, vpa, policy, controlledValues);
    recommendations.push(capped.recommendation);
    if (capped.notes.length > 0) annotations[name] = capped.notes;
  }
  return { recommendations, annotations };
}

interface CappedEntry {
  recommendation: ParsedRecommendation;
  notes: string[];
}

function cappedEntry(
  entry: RecommendedContainerResources,
  policy: ContainerResourcePolicy | undefined,
  controlledValues: ControlledValues,
  current: CurrentResources,
): CappedEntry {
  const recommendation = parseKeptRecommendation(entry);
  const notes = capContainerRecommendation(recommendation, {
    current,
    policy,
    controlledValues,
    containerLimitRange: undefined,
  });
  return { recommendation, notes };
}

/** No requests or limits: what the capping of a pod-independent entry is given, unread. */
const NO_CURRENT_RESOURCES: CurrentResources = {
  requests: new Map(),
  limits: new Map(),
};

/**
 * The capping of an entry that reads nothing of the pod, kept per entry object with the
 * VPA it was for (whose policy decided it). Shared by every pod processed against them;
 * callers only read a processing.
 */
function keptCapping(
  entry: RecommendedContainerResources,
  vpa: VerticalPodAutoscaler,
  policy: ContainerResourcePolicy | undefined,
  controlledValues: ControlledValues,
): CappedEntry {
  const kept = cappedEntries.get(entry);
  if (kept?.vpa === vpa) return kept.capped;
  const capped = cappedEntry(
    entry,
    policy,
    controlledValues,
    NO_CURRENT_RESOURCES,
  );
  cappedEntries.set(entry, { vpa, capped });
  return capped;
}

const cappedEntries = new WeakMap<
  RecommendedContainerResources,
  { vpa: VerticalPodAutoscaler; capped: CappedEntry }
>();

function withoutEmptyName(values: QuantityMap): QuantityMap {
  return new Map([...values].filter(([name]) => name !== ''));
}
