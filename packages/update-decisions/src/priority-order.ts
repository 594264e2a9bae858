/** The part of a pod's update priority that orders the updater's queue. */
export interface UpdatePriority {
  scaleUp: boolean;
  diff: number;
}

/**
 * Comparator for `Array.prototype.sort`, highest priority first: pods that want to grow
 * before those that do not (an undersized pod hurts more than an oversized one wastes),
 * then the larger relative change. Equal priorities compare 0; upstream's sort is unstable
 * there, this one keeps input order.
 */
export function compareUpdatePriority(
  a: UpdatePriority,
  b: UpdatePriority,
): number {
  if (a.scaleUp !== b.scaleUp) return a.scaleUp ? -1 : 1;
  if (a.diff > b.diff) return -1;
  if (a.diff < b.diff) return 1;
  return 0;
}

/** A sorted copy of `candidates`, highest update priority first. */
export function orderForUpdate<T>(
  candidates: readonly T[],
  priorityOf: (candidate: T) => UpdatePriority,
): T[] {
  return [...candidates].sort((a, b) =>
    compareUpdatePriority(priorityOf(a), priorityOf(b)),
  );
}
