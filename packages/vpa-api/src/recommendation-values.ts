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

/**
 * `parseRecommendation` with the parse kept per entry object, handing out new maps each
 * time, as capping changes them in place (the quantities are immutable and shared). The
 * updater processes a VPA's recommendation for each pod shape of the VPA (two per workload
 * in a rollout) and the webhook for each pod it admits; the entry, as the caches hand out
 * a VPA's recommendation or its narrowed form (`withControlledRecommendation`), never
 * changes once made, so the parse depends on the object alone. Throws `QuantityError`
 * for a malformed quantity, every time (nothing is kept then).
 */
export function parseKeptRecommendation(
  recommendation: RecommendedContainerResources,
): ParsedRecommendation {
  let parsed = parsedEntries.get(recommendation);
  if (parsed === undefined) {
    parsed = parseRecommendation(recommendation);
    parsedEntries.set(recommendation, parsed);
  }
  const { containerName, target, lowerBound, upperBound, uncappedTarget } =
    parsed;
  return {
    containerName,
    target: new Map(target),
    ...(lowerBound && { lowerBound: new Map(lowerBound) }),
    ...(upperBound && { upperBound: new Map(upperBound) }),
    ...(uncappedTarget && { uncappedTarget }),
  };
}

/** The parse of each entry object, never handed out itself (callers get copies). */
const parsedEntries = new WeakMap<
  RecommendedContainerResources,
  ParsedRecommendation
>();

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
