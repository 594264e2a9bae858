/**
 * Whether a watch that has seen nothing (no event, not even a bookmark) since
 * `lastActivityMs` must be considered silently dead at `nowMs`.
 */
export function isWatchStale(
  lastActivityMs: number,
  nowMs: number,
  staleAfterMs: number,
): boolean {
  return nowMs - lastActivityMs > staleAfterMs;
}

/** How often to check for staleness: a quarter of the limit, within [50 ms, 5 s]. */
export function stalenessCheckIntervalMs(staleAfterMs: number): number {
  return Math.min(5_000, Math.max(50, Math.floor(staleAfterMs / 4)));
}
