import { withControlledRecommendation } from '@tandem/admission';
import {
  ContainerScalingMode,
  filterRecommendedResources,
  filterResources,
  getContainerPolicy,
  getControlledResources,
  podLevelResourceNames,
  processRecommendationForPod,
  type LimitRange,
  type Pod,
  type ProcessedRecommendation,
  type RecommendedContainerResources,
  type ResourceList,
  type VerticalPodAutoscaler,
  withoutPodLevelResources,
} from '@tandem/vpa-api';

/** Anything with per-container recommendations: the VPA status's or a processed one. */
export interface ContainerRecommendations {
  containerRecommendations?: readonly RecommendedContainerResources[];
}

/**
 * The recommendation the updater acts on for one pod (upstream's capping processor output):
 * narrowed to what the VPA's policy controls first, as the admission webhook does, and to
 * what the updater may change on this pod (`applicableRecommendation`), then capped by
 * LimitRanges and the policy. Undefined when the VPA has neither a recommendation nor a
 * resource policy. Throws `QuantityError` for a malformed quantity.
 */
export function updaterRecommendation(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[] = [],
): ProcessedRecommendation | undefined {
  return processRecommendationForPod(
    pod,
    applicableRecommendation(pod, vpa),
    limitRanges,
  );
}

/**
 * The VPA with its recommendation narrowed to what the updater may change on this pod: what
 * its policy controls, without the resources the pod declares at pod level. Those are left
 * as declared (docs/decisions/0016-pod-level-resources.md): a resize or an eviction for them
 * could only end in the values the webhook keeps, or in a resize the API server rejects.
 */
export function applicableRecommendation(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
): VerticalPodAutoscaler {
  return withoutPodLevelResources(withControlledRecommendation(vpa), pod);
}

/**
 * `recommendation`'s entries with containers in mode Off dropped and only controlled
 * resources kept, less those the pod declares at pod level (`applicableRecommendation`).
 * Upstream's recommender never writes the uncontrolled ones, so its updater does not check;
 * a recommendation from elsewhere, or a policy edited since the last recommender cycle,
 * could otherwise have a pod evicted for a container or resource the VPA must not touch.
 */
export function controlledEntries(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  recommendation: ContainerRecommendations | undefined,
): readonly RecommendedContainerResources[] {
  const kept =
    recommendation === undefined ? undefined : lastEntries.get(recommendation);
  if (kept?.pod === pod && kept.vpa === vpa) return kept.entries;
  // As `applicableRecommendation` narrows the VPA's recommendation (its policy, then the
  // pod-level resources), but entry by entry: building a VPA object to narrow was a new
  // object per evaluation, and most entries have nothing to take out.
  const excluded = podLevelResourceNames(pod);
  const entries: RecommendedContainerResources[] = [];
  for (const entry of recommendation?.containerRecommendations ?? []) {
    const policy = getContainerPolicy(vpa, entry.containerName);
    if (policy?.mode === ContainerScalingMode.Off) continue;
    entries.push(
      narrowedEntry(entry, getControlledResources(policy), excluded),
    );
  }
  if (recommendation !== undefined)
    lastEntries.set(recommendation, { pod, vpa, entries });
  return entries;
}

/**
 * The entry with target and bounds holding only `controlled` resources not in `excluded`,
 * and its uncapped target without `excluded`: what `withControlledRecommendation` and then
 * `withoutPodLevelResources` make of it. The entry itself when that takes nothing out.
 */
function narrowedEntry(
  entry: RecommendedContainerResources,
  controlled: readonly string[],
  excluded: readonly string[],
): RecommendedContainerResources {
  const keep = (name: string) =>
    controlled.includes(name) && !excluded.includes(name);
  const { target, lowerBound, upperBound, uncappedTarget } = entry;
  const uncappedKept =
    excluded.length === 0 ||
    uncappedTarget === undefined ||
    keepsAll(uncappedTarget, (name) => !excluded.includes(name));
  if (
    target !== undefined &&
    keepsAll(target, keep) &&
    keepsAll(lowerBound, keep) &&
    keepsAll(upperBound, keep) &&
    uncappedKept
  )
    return entry;
  return {
    ...filterRecommendedResources(entry, keep),
    ...(excluded.length > 0 &&
      uncappedTarget && {
        uncappedTarget: filterResources(
          uncappedTarget,
          (name) => !excluded.includes(name),
        ),
      }),
  };
}

/** Whether `keep` accepts every resource of the list (an absent list has none). */
function keepsAll(
  list: ResourceList | undefined,
  keep: (name: string) => boolean,
): boolean {
  for (const name in list)
    if (Object.hasOwn(list, name) && !keep(name)) return false;
  return true;
}

/**
 * The last `controlledEntries` per recommendation object, with the pod and VPA it was for:
 * `assessPod` asks twice for the same three (priority, then eviction requirements), and
 * narrowing builds a VPA object each time. Objects are never modified once made.
 */
const lastEntries = new WeakMap<
  ContainerRecommendations,
  {
    pod: Pod;
    vpa: VerticalPodAutoscaler;
    entries: readonly RecommendedContainerResources[];
  }
>();
