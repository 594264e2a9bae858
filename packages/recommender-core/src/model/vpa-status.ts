import {
  type AggregateContainerState,
  type ContainerRecommendation,
  DEFAULT_RECOMMENDER_CONFIG,
  type RecommendationFormat,
  type RecommenderConfig,
  type ResourceQuantities,
  toContainerRecommendations,
} from '@tandem/estimators';
import {
  capRecommendationToPolicy,
  getContainerPolicy,
  getControlledResources,
  type RecommendedContainerResources,
  type ResourceList,
  type VerticalPodAutoscaler,
  type VerticalPodAutoscalerStatus,
} from '@tandem/vpa-api';
import type { ClusterModel } from './cluster-model.js';
import { integerCpuContainers, roundUpToWholeCores } from './integer-cpu.js';
import { capToLargestNode } from './node-cap.js';
import { strategyRecommendations } from './strategy-recommendations.js';
import { shareWithObserved, type TextInterner } from './status-sharing.js';
import { nextConditions } from './vpa-conditions.js';

export interface VpaStatusOptions {
  /** When this cycle runs: the transition time of conditions that change. */
  readonly nowMs: number;
  readonly recommender?: RecommenderConfig;
  readonly format?: RecommendationFormat;
  /** `--container-recommendation-max-allowed-cpu/-memory`, for resources a policy leaves open. */
  readonly globalMaxAllowed?: ResourceList;
  /** `--cpu-integer-post-processor-enabled`: annotated containers get whole cores. */
  readonly integerCpuPostProcessor?: boolean;
  /** `--cap-recommendation-at-largest-node`: the largest node's allocatable; undefined: no cap. */
  readonly largestNodeAllocatable?: ResourceList;
  /**
   * One a cycle: the status shares the observed status's unchanged parts and one copy of
   * each quantity text (see {@link shareWithObserved}); undefined: all of it made afresh.
   */
  readonly texts?: TextInterner;
}

/**
 * The `status` the recommender writes for one VPA (undefined for a VPA the model does not
 * hold): per container its strategy's target and bounds (upstream's estimator chain unless
 * the VPA names another strategy), limited to the policy's
 * controlled resources and capped to its minAllowed/maxAllowed, then optionally to the
 * largest node (uncappedTarget keeps the value before capping), then the conditions and the observed generation.
 */
export function computeVpaStatus(
  model: ClusterModel,
  vpaKey: string,
  options: VpaStatusOptions,
): VerticalPodAutoscalerStatus | undefined {
  const vpa = model.vpa(vpaKey);
  if (vpa === undefined) return undefined;
  const recommend = (
    aggregates: ReadonlyMap<string, AggregateContainerState>,
  ) =>
    toContainerRecommendations(
      strategyRecommendations(
        model,
        vpa,
        aggregates,
        options.recommender ?? DEFAULT_RECOMMENDER_CONFIG,
        options.nowMs,
      ),
      options.format,
    );
  // A policy that cannot be applied must not let uncapped values through. The merged
  // aggregates are lent: the recommendations keep numbers and quantities, not them.
  const recommendations = (
    vpa.policyUnusable
      ? recommend(new Map())
      : model.lendAggregatesForVpa(vpaKey, recommend)
  ).map((recommendation) => controlledOnly(recommendation, vpa.object));
  const capped = capRecommendationToPolicy(
    options.integerCpuPostProcessor === true
      ? roundUpToWholeCores(recommendations, integerCpuContainers(vpa.object))
      : recommendations,
    vpa.object,
    options.globalMaxAllowed,
  ).containerRecommendations;
  const containerRecommendations =
    options.largestNodeAllocatable === undefined
      ? capped
      : capToLargestNode(capped, options.largestNodeAllocatable);
  const conditions = nextConditions(
    vpa.object.status?.conditions ?? [],
    {
      unsupportedReason: vpa.unsupportedReason,
      podsMatched: model.matchingPodCount(vpaKey) > 0,
      hasRecommendation: containerRecommendations.length > 0,
    },
    options.nowMs,
  );
  const generation = vpa.object.metadata?.generation;
  const status: VerticalPodAutoscalerStatus = {
    // An empty list is omitted in upstream's JSON, leaving `recommendation: {}`.
    recommendation:
      containerRecommendations.length > 0 ? { containerRecommendations } : {},
    conditions,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  return options.texts === undefined
    ? status
    : shareWithObserved(vpa.object.status, status, options.texts);
}

/** Keeps only the resources the container's policy lets the VPA control (default cpu and memory). */
function controlledOnly(
  recommendation: ContainerRecommendation,
  vpa: VerticalPodAutoscaler,
): RecommendedContainerResources {
  const controlled = getControlledResources(
    getContainerPolicy(vpa, recommendation.containerName),
  );
  // The default (both resources controlled) keeps every value, and the recommendation
  // holds nothing else: it is the answer as it is (four copies per container were 5 % of a
  // steady cycle at 100,000 VPAs).
  if (controlled.includes('cpu') && controlled.includes('memory'))
    return recommendation;
  const pick = (quantities: ResourceQuantities): ResourceList =>
    Object.fromEntries(
      Object.entries(quantities).filter(([resource]) =>
        controlled.includes(resource),
      ),
    );
  return {
    containerName: recommendation.containerName,
    target: pick(recommendation.target),
    lowerBound: pick(recommendation.lowerBound),
    upperBound: pick(recommendation.upperBound),
    uncappedTarget: pick(recommendation.uncappedTarget),
  };
}
