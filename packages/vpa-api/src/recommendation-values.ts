import {
  formatResourceList,
  parseResourceList,
  type QuantityMap,
} from './resource-list.js';
import type { Quantity } from './quantity.js';
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
  const { containerName, target, lowerBound, upperBound, uncappedTarget } =
    keptParse(recommendation);
  return {
    containerName,
    target: new Map(target),
    ...(lowerBound && { lowerBound: new Map(lowerBound) }),
    ...(upperBound && { upperBound: new Map(upperBound) }),
    ...(uncappedTarget && { uncappedTarget }),
  };
}

/** The parse of each entry object, never handed out to be changed (callers get copies). */
const parsedEntries = new WeakMap<
  RecommendedContainerResources,
  ParsedRecommendation
>();

/** The entry's parse, made once per entry object; never to be changed. */
function keptParse(
  recommendation: RecommendedContainerResources,
): ParsedRecommendation {
  let parsed = parsedEntries.get(recommendation);
  if (parsed === undefined) {
    parsed = parseRecommendation(recommendation);
    parsedEntries.set(recommendation, parsed);
  }
  return parsed;
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

/** A `ParsedRecommendation` to read only: kept parses are shared. */
export interface RecommendationQuantities {
  readonly containerName: string;
  readonly target: ReadonlyMap<string, Quantity>;
  readonly lowerBound?: ReadonlyMap<string, Quantity>;
  readonly upperBound?: ReadonlyMap<string, Quantity>;
}

/**
 * The quantities of an entry's target and bounds, to read only: the processed values it
 * was formatted from (`formatKeptRecommendation`), else its parse, kept per entry object.
 * The updater's priority and eviction requirements read each evaluation's processed
 * recommendation, and parsing back the texts just formatted was a quarter of the quantity
 * parses of a cycle after a new recommendation. Canonical text is exact, so the values are
 * those its texts parse to; only a quantity's format (its suffix) may differ. Throws
 * `QuantityError` for a malformed quantity, every time (nothing is kept then).
 */
export function recommendationQuantities(
  recommendation: RecommendedContainerResources,
): RecommendationQuantities {
  return formattedEntries.get(recommendation) ?? keptParse(recommendation);
}

/**
 * `formatRecommendation`, once per processed recommendation object: the updater's kept
 * cappings (`processedByPolicy`) are shared by every pod shape of a VPA, and so is their
 * text. The recommendation must not change afterwards; `recommendationQuantities` reads it
 * for the entry.
 */
export function formatKeptRecommendation(
  recommendation: ParsedRecommendation,
): RecommendedContainerResources {
  let formatted = formattedRecommendations.get(recommendation);
  if (formatted === undefined) {
    formatted = formatRecommendation(recommendation);
    formattedRecommendations.set(recommendation, formatted);
    formattedEntries.set(formatted, recommendation);
  }
  return formatted;
}

/** Each processed recommendation's text, and the other way round. */
const formattedRecommendations = new WeakMap<
  ParsedRecommendation,
  RecommendedContainerResources
>();
const formattedEntries = new WeakMap<
  RecommendedContainerResources,
  ParsedRecommendation
>();

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
