import { parseQuantity, type Quantity } from './quantity.js';
import type { ResourceList } from './types.js';

/** A parsed resource list: resource name → exact quantity, in the list's own key order. */
export type QuantityMap = Map<string, Quantity>;

/** Parses every quantity of a resource list; throws `QuantityError` on malformed text. */
export function parseResourceList(list: ResourceList | undefined): QuantityMap {
  // Loops rather than `Object.entries(...).map` into `new Map`: the updater parses a few
  // lists per pod evaluation, and the pair arrays were much of a first cycle's garbage.
  const quantities: QuantityMap = new Map();
  if (list === undefined) return quantities;
  for (const name of Object.keys(list))
    quantities.set(name, parseQuantity(list[name] as string));
  return quantities;
}

/**
 * The quantity of one entry (undefined when absent), after parsing every entry as
 * {@link parseResourceList} does, so malformed text throws the same `QuantityError`;
 * without building the map, for a reader that wants one entry of many lists.
 */
export function resourceListEntry(
  list: ResourceList | undefined,
  name: string,
): Quantity | undefined {
  if (list === undefined) return undefined;
  let found: Quantity | undefined;
  for (const key of Object.keys(list)) {
    const quantity = parseQuantity(list[key] as string);
    if (key === name) found = quantity;
  }
  return found;
}

/** Canonical quantity text for every entry. */
export function formatResourceList(quantities: QuantityMap): ResourceList {
  const list: ResourceList = {};
  for (const [name, quantity] of quantities) {
    const text = quantity.toString();
    // An own `__proto__` entry, as `Object.fromEntries` would make, not a prototype.
    if (name === '__proto__')
      Object.defineProperty(list, name, {
        value: text,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else list[name] = text;
  }
  return list;
}

/** Entries sorted by resource name, so anything derived from them comes out in a stable order. */
export function sortedEntries(
  quantities: ReadonlyMap<string, Quantity>,
): [string, Quantity][] {
  return [...quantities].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
