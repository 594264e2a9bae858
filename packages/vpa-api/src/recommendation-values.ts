import {
  formatResourceList,
  parseResourceList,
  type QuantityMap,
} from './resource-list.js';
import type { RecommendedContainerResources, ResourceList } from './types.js';

/** The recommendation fields post-processing may change; `uncappedTarget` never is. */
export const CAPPED_FIELDS = ['target', 'lowerBound', 'upperBound'] as const;
export type CappedField = (typeof CAPPED_FIELDS)[number];

/** A container recommendation with its capped fields parsed, for in-place adjustment. */
export interface ParsedRecommendation {
  containerName: string;
  target: QuantityMap;
  lowerBound?: QuantityMap;
  upperBound?: QuantityMap;
  uncappedTarget?: ResourceList;
}

export function parseRecommendation(
  recommendation: RecommendedContainerResources,
): ParsedRecommendation {
  const { containerName, target, lowerBound, upperBound, uncappedTarget } =
    recommendation;
  return {
    containerName,
    target: parseResourceList(target),
    ...(lowerBound && { lowerBound: parseResourceList(lowerBound) }),
    ...(upperBound && { upperBound: parseResourceList(upperBound) }),
    ...(uncappedTarget && { uncappedTarget }),
  };
}

export function formatRecommendation(
  recommendation: ParsedRecommendation,
): RecommendedContainerResources {
  const { containerName, target, lowerBound, upperBound, uncappedTarget } =
    recommendation;
  return {
    containerName,
    target: formatResourceList(target),
    ...(lowerBound && { lowerBound: formatResourceList(lowerBound) }),
    ...(upperBound && { upperBound: formatResourceList(upperBound) }),
    ...(uncappedTarget && { uncappedTarget }),
  };
}
