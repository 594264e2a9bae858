import type { AddOperation } from '@tandem/admission';
import { formatMemoryBytes, parseMemoryBytes, type Pod } from '@tandem/vpa-api';

/**
 * `--in-place-memory-limit-headroom`: the share above a container's working set that an
 * in-place memory limit must keep. 0.15 is upstream's `--recommendation-margin-fraction`,
 * the margin the recommender itself puts over usage, so a limit it derives from the
 * current working set passes; and the working set read is one metrics resolution old
 * (15 s to a minute), during which memory may grow.
 */
export const DEFAULT_IN_PLACE_MEMORY_LIMIT_HEADROOM = 0.15;

/** Why a container's memory limit is left as it is. */
export type MemoryLimitKeptReason =
  /** The new limit is under the working set plus headroom: the kernel would OOM-kill it. */
  | 'below-working-set'
  /** No usage is known for the container (no metrics): a shrink could be fatal. */
  | 'working-set-unknown'
  /** The current or new limit does not parse: nothing can be compared. */
  | 'limit-unreadable';

/** One memory limit the resize leaves as it is, with the numbers that decided it. */
export interface MemoryLimitKept {
  container: string;
  reason: MemoryLimitKeptReason;
  /** The limit the pod has now, as written; undefined when the container has none. */
  currentLimit: string | undefined;
  /** The limit the resize would have set, as written. */
  proposedLimit: string;
  /** The container's working set in bytes, when known. */
  workingSetBytes: number | undefined;
  /** `ceil(workingSet × (1 + headroom))`: the lowest limit allowed, when known. */
  floorBytes: number | undefined;
}

export interface GuardedResize {
  /** The resize patch without the memory limits kept (and their then-empty parents). */
  patch: AddOperation[];
  kept: MemoryLimitKept[];
}

// A native sidecar's resources sit under `/spec/initContainers/<i>` (AEP-8905).
const MEMORY_LIMIT_PATH =
  /^\/spec\/(containers|initContainers)\/(\d+)\/resources\/limits\/memory$/;
const MEMORY_REQUEST_PATH =
  /^\/spec\/(containers|initContainers)\/(\d+)\/resources\/requests\/memory$/;

/**
 * The memory-shrink rail (kubernetes/kubernetes#135670: the kubelet's own check of a
 * memory limit decrease against usage is best-effort and racy, and a limit under the live
 * working set is an immediate OOM kill). Every memory limit the resize patch lowers (or
 * sets where the container had none) must stay at or above the container's working set ×
 * (1 + `headroom`); one that would not, or whose container's usage is unknown
 * (`workingSets` undefined, or without the container), is taken out of the patch, and the
 * rest of the resize goes on. A memory request the patch raises above a kept limit is
 * taken out too (a request may not exceed its limit); a lower one stays. Never throws.
 */
export function guardMemoryShrink(
  pod: Pod,
  patch: readonly AddOperation[],
  workingSets: ReadonlyMap<string, number> | undefined,
  headroom: number,
): GuardedResize {
  const kept: MemoryLimitKept[] = [];
  const dropped = new Set<AddOperation>();
  const keptLimitBytes = new Map<string, number | undefined>();
  for (const operation of patch) {
    const place = patchedContainer(MEMORY_LIMIT_PATH, operation);
    if (place === undefined) continue;
    const container = pod.spec[place.field]?.[place.index];
    if (container === undefined) continue;
    const currentLimit = container.resources?.limits?.['memory'];
    const verdict = judge(
      currentLimit,
      String(operation.value),
      workingSets?.get(container.name),
      headroom,
    );
    if (verdict === undefined) continue;
    dropped.add(operation);
    keptLimitBytes.set(place.key, verdict.currentBytes);
    kept.push({
      container: container.name,
      reason: verdict.reason,
      currentLimit,
      proposedLimit: String(operation.value),
      workingSetBytes: verdict.workingSetBytes,
      floorBytes: verdict.floorBytes,
    });
  }
  for (const operation of patch) {
    const place = patchedContainer(MEMORY_REQUEST_PATH, operation);
    if (place === undefined || !keptLimitBytes.has(place.key)) continue;
    const limitBytes = keptLimitBytes.get(place.key);
    if (limitBytes !== undefined && !(bytesOf(operation.value) <= limitBytes))
      dropped.add(operation);
  }
  if (dropped.size === 0) return { patch: [...patch], kept };
  const remaining = patch.filter((operation) => !dropped.has(operation));
  return { patch: withoutEmptyParents(remaining), kept };
}

/** A kept limit's numbers; undefined when the new limit may be set. */
function judge(
  currentLimit: string | undefined,
  proposedLimit: string,
  workingSetBytes: number | undefined,
  headroom: number,
):
  | {
      reason: MemoryLimitKeptReason;
      currentBytes: number | undefined;
      workingSetBytes: number | undefined;
      floorBytes: number | undefined;
    }
  | undefined {
  const proposedBytes = bytesOf(proposedLimit);
  const currentBytes =
    currentLimit === undefined ? undefined : bytesOf(currentLimit);
  if (Number.isNaN(proposedBytes) || Number.isNaN(currentBytes ?? 0))
    return {
      reason: 'limit-unreadable',
      currentBytes: undefined,
      workingSetBytes,
      floorBytes: undefined,
    };
  // Raising a limit (or keeping it) never kills; a container without one has no ceiling.
  if (currentBytes !== undefined && proposedBytes >= currentBytes)
    return undefined;
  if (workingSetBytes === undefined)
    return {
      reason: 'working-set-unknown',
      currentBytes,
      workingSetBytes,
      floorBytes: undefined,
    };
  const floorBytes = Math.ceil(workingSetBytes * (1 + headroom));
  return proposedBytes >= floorBytes
    ? undefined
    : {
        reason: 'below-working-set',
        currentBytes,
        workingSetBytes,
        floorBytes,
      };
}

/** The container an operation writes to: its list, index and a key naming both. */
function patchedContainer(
  path: RegExp,
  operation: AddOperation,
):
  | { field: 'containers' | 'initContainers'; index: number; key: string }
  | undefined {
  const match = path.exec(operation.path);
  if (match === null) return undefined;
  const field = match[1] === 'initContainers' ? 'initContainers' : 'containers';
  return { field, index: Number(match[2]), key: `${field}/${match[2]}` };
}

/** Bytes of a quantity; NaN when it does not parse (the guard never throws). */
function bytesOf(value: unknown): number {
  try {
    return parseMemoryBytes(String(value));
  } catch {
    return Number.NaN;
  }
}

/**
 * Drops the operations that only created an empty object (`resources`, `limits`) for
 * values since taken out, so the resize never writes an empty `limits` map.
 */
function withoutEmptyParents(patch: readonly AddOperation[]): AddOperation[] {
  return patch.filter(
    (operation) =>
      !isEmptyObject(operation.value) ||
      patch.some((other) => other.path.startsWith(`${operation.path}/`)),
  );
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 0
  );
}

/** The kept limit in words, with its numbers, for an event or a log. */
export function describeMemoryLimitKept(kept: MemoryLimitKept): string {
  const current = kept.currentLimit ?? 'none';
  const head = `memory limit of container ${kept.container} kept at ${current} instead of ${kept.proposedLimit}`;
  switch (kept.reason) {
    case 'below-working-set':
      return `${head}: below its working set ${formatMemoryBytes(kept.workingSetBytes ?? 0)} plus headroom (at least ${formatMemoryBytes(kept.floorBytes ?? 0)})`;
    case 'working-set-unknown':
      return `${head}: its working set is unknown (no metrics), and a shrink under it is an OOM kill`;
    case 'limit-unreadable':
      return `${head}: a limit does not parse`;
  }
}
