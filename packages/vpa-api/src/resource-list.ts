import { parseQuantity, type Quantity } from './quantity.js';
import type { ResourceList } from './types.js';

/** A parsed resource list: resource name → exact quantity, in the list's own key order. */
export type QuantityMap = Map<string, Quantity>;

/** Parses every quantity of a resource list; throws `QuantityError` on malformed text. */
export function parseResourceList(list: ResourceList | undefined): QuantityMap {
  return new Map(
    Object.entries(list ?? {}).map(([name, text]) => [
      name,
      parseQuantity(text),
    ]),
  );
}

/** Canonical quantity text for every entry. */
export function formatResourceList(quantities: QuantityMap): ResourceList {
  return Object.fromEntries(
    [...quantities].map(([name, quantity]) => [name, quantity.toString()]),
  );
}

/** Entries sorted by resource name, so anything derived from them comes out in a stable order. */
export function sortedEntries(quantities: QuantityMap): [string, Quantity][] {
  return [...quantities].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
