import { withControlledRecommendation } from '@tandem/admission';
import {
  processRecommendationForPod,
  type LimitRange,
  type Pod,
  type ProcessedRecommendation,
  type RecommendedContainerResources,
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
  const narrowed = applicableRecommendation(pod, {
    ...vpa,
    status: {
      recommendation: {
        containerRecommendations: [
          ...(recommendation?.containerRecommendations ?? []),
        ],
      },
    },
  });
  const entries =
    narrowed.status?.recommendation?.containerRecommendations ?? [];
  if (recommendation !== undefined)
    lastEntries.set(recommendation, { pod, vpa, entries });
  return entries;
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
