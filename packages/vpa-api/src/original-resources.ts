import { describeValue } from './describe-value.js';
import { isRecord } from './guards.js';
import { parseQuantity, QuantityError } from './quantity.js';
import type { ResourceList } from './types.js';

/**
 * The `tandem.dev/original-resources` pod annotation (`PodAnnotation.originalResources`),
 * read side. The admission webhook writes it; the metrics adapter reads it to measure
 * usage against what the user declared rather than what the VPA set. It lives here so the
 * reader needs no dependency on the webhook.
 */

/** One container's requests and limits as its pod was submitted. */
export interface OriginalContainerResources {
  requests: ResourceList;
  limits: ResourceList;
}

/**
 * Container name → its requests and limits as submitted. A Map, not an object: a container
 * may well be called `constructor`, and a lookup must not find Object's.
 */
export type OriginalResources = ReadonlyMap<string, OriginalContainerResources>;

/**
 * Reads a `tandem.dev/original-resources` annotation back, strictly: a JSON object whose
 * every value is `{"requests": {...}, "limits": {...}}` (both present, nothing else) of
 * valid quantity strings. Anything else yields an Error saying where and what is wrong,
 * so a consumer never measures against half-read values.
 */
export function parseOriginalResources(
  text: string,
): OriginalResources | Error {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return new Error(
      `original resources: not JSON (${error instanceof Error ? error.message : 'unreadable'})`,
    );
  }
  if (!isRecord(parsed)) {
    return new Error(
      `original resources: must be a JSON object of containers, got ${describeValue(parsed)}`,
    );
  }
  const result = new Map<string, OriginalContainerResources>();
  for (const [name, value] of Object.entries(parsed)) {
    const entry = containerEntry(
      value,
      `original resources[${JSON.stringify(name)}]`,
    );
    if (entry instanceof Error) return entry;
    result.set(name, entry);
  }
  return result;
}

function containerEntry(
  value: unknown,
  path: string,
): OriginalContainerResources | Error {
  if (!isRecord(value)) {
    return new Error(
      `${path}: must be an object with requests and limits, got ${describeValue(value)}`,
    );
  }
  const unknownKey = Object.keys(value).find(
    (key) => key !== 'requests' && key !== 'limits',
  );
  if (unknownKey !== undefined) {
    return new Error(
      `${path}: unknown field ${JSON.stringify(unknownKey)} (only requests and limits)`,
    );
  }
  const requests = resourceList(value['requests'], `${path}.requests`);
  if (requests instanceof Error) return requests;
  const limits = resourceList(value['limits'], `${path}.limits`);
  if (limits instanceof Error) return limits;
  return { requests, limits };
}

function resourceList(value: unknown, path: string): ResourceList | Error {
  if (value === undefined) return new Error(`${path}: missing`);
  if (!isRecord(value)) {
    return new Error(
      `${path}: must be an object of quantities, got ${describeValue(value)}`,
    );
  }
  const entries = Object.entries(value);
  for (const [resource, quantity] of entries) {
    const where = `${path}[${JSON.stringify(resource)}]`;
    if (typeof quantity !== 'string') {
      return new Error(
        `${where}: must be a quantity string, got ${describeValue(quantity)}`,
      );
    }
    try {
      parseQuantity(quantity);
    } catch (error) {
      if (!(error instanceof QuantityError)) throw error;
      return new Error(`${where}: ${error.message}`);
    }
  }
  return Object.fromEntries(entries) as ResourceList;
}
