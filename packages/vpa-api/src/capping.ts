import { applyBounds, CappingAction } from './bounds.js';
import { getContainerPolicy } from './container-policy.js';
import {
  CAPPED_FIELDS,
  formatRecommendation,
  parseRecommendation,
} from './recommendation-values.js';
import { parseResourceList } from './resource-list.js';
import type {
  RecommendedContainerResources,
  ResourceList,
  VerticalPodAutoscaler,
} from './types.js';

/** Container name → capping annotations for its target, e.g. `cpu capped to minAllowed`. */
export type ContainerAnnotations = Record<string, string[]>;

export interface CappedRecommendation {
  containerRecommendations: RecommendedContainerResources[];
  /** Only containers whose target was changed appear. */
  annotations: ContainerAnnotations;
}

/**
 * The recommender's capping post-processor: holds each container's target, lowerBound and
 * upperBound within its policy's `minAllowed`/`maxAllowed` (exact container name, else `*`).
 * `globalMaxAllowed` (the `--container-recommendation-max-allowed-*` flags) fills in only the
 * resources the policy's `maxAllowed` does not name. Zero bounds are ignored, comparisons are
 * exact, and `uncappedTarget` is passed through untouched. With bounds, values are written
 * in canonical form; a container without any bound is returned as given.
 *
 * Throws `QuantityError` if a quantity in the inputs is malformed.
 */
export function capRecommendationToPolicy(
  containerRecommendations: readonly RecommendedContainerResources[],
  vpa: VerticalPodAutoscaler,
  globalMaxAllowed: ResourceList = {},
): CappedRecommendation {
  const annotations: ContainerAnnotations = {};
  const capped = containerRecommendations.map((original) => {
    const policy = getContainerPolicy(vpa, original.containerName);
    const maxAllowed = { ...globalMaxAllowed, ...policy?.maxAllowed };
    // Without bounds nothing is capped, and the values pass through as given: the common
    // case, and the recommender's hot path (parsing and formatting back costs a third of it).
    if (isEmpty(policy?.minAllowed) && isEmpty(maxAllowed)) return original;
    const recommendation = parseRecommendation(original);
    const bounds = {
      min: parseResourceList(policy?.minAllowed),
      max: parseResourceList(maxAllowed),
      minAction: CappingAction.toMinAllowed,
      maxAction: CappingAction.toMaxAllowed,
    };
    for (const field of CAPPED_FIELDS) {
      const values = recommendation[field];
      if (values === undefined) continue;
      const notes = applyBounds(values, bounds);
      if (field === 'target' && notes.length > 0) {
        annotations[recommendation.containerName] = notes;
      }
    }
    return formatRecommendation(recommendation);
  });
  return { containerRecommendations: capped, annotations };
}

function isEmpty(list: ResourceList | undefined): boolean {
  return list === undefined || Object.keys(list).length === 0;
}
