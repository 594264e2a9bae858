import { parseQuantity, QuantityError } from './quantity.js';
import type { ResourceList } from './types.js';

/** One resource of one container going from one quantity to another. */
export interface ResourceChange {
  container: string;
  resource: string;
  /** Undefined when there was none (a first recommendation, a request not declared). */
  from: string | undefined;
  to: string;
}

/**
 * The resources of `to` that differ from `from` by at least `minFraction` of the `from`
 * value (0: by anything), or that `from` lacks: the relative change |to − from| / from that
 * upstream's updater holds against `--pod-update-threshold` (`decidePodUpdate` updates at
 * or above it). A quantity that does not parse counts as changed when its text differs.
 */
export function changedResources(
  container: string,
  from: ResourceList | undefined,
  to: ResourceList | undefined,
  minFraction = 0,
): ResourceChange[] {
  return Object.entries(to ?? {})
    .filter(([resource, next]) => {
      const previous = from?.[resource];
      return previous === undefined || movedBeyond(previous, next, minFraction);
    })
    .map(([resource, next]) => ({
      container,
      resource,
      from: from?.[resource],
      to: next,
    }));
}

/**
 * Changes as a user reads them, quantities as kubectl prints them, containers apart:
 * `app: cpu 400m -> 210m, memory 1Gi -> 800Mi; sidecar: cpu 10m`.
 */
export function describeResourceChanges(
  changes: readonly ResourceChange[],
): string {
  const byContainer = new Map<string, string[]>();
  for (const { container, resource, from, to } of changes) {
    const text = `${resource} ${from === undefined ? '' : `${kubectlQuantity(from)} -> `}${kubectlQuantity(to)}`;
    byContainer.set(container, [...(byContainer.get(container) ?? []), text]);
  }
  return [...byContainer]
    .map(([container, texts]) => `${container}: ${texts.join(', ')}`)
    .join('; ');
}

/** A quantity in its canonical form, as kubectl prints it (`0.5` → `500m`); other text as is. */
export function kubectlQuantity(text: string): string {
  try {
    return parseQuantity(text).toString();
  } catch (error) {
    if (error instanceof QuantityError) return text;
    throw error;
  }
}

function movedBeyond(from: string, to: string, minFraction: number): boolean {
  let before: number;
  let after: number;
  try {
    before = Number(parseQuantity(from).milliValue());
    after = Number(parseQuantity(to).milliValue());
  } catch (error) {
    if (error instanceof QuantityError) return from !== to;
    throw error;
  }
  if (before === 0) return after !== 0;
  const moved = Math.abs(after - before) / before;
  return moved > 0 && moved >= minFraction;
}
