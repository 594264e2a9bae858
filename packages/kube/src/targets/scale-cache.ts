/**
 * Upstream's scale-subresource cache (`controllerCacheStorage` in the VPA's
 * `pkg/target/controller_fetcher`), with the recommender's settings: an entry is fresh for
 * `scaleCacheEntryFreshnessTime` (10 min) plus up to as much again of jitter
 * (`scaleCacheEntryJitterFactor` 1.0), is refreshed in the background every
 * `scaleCacheLoopPeriod` (7 s) once it is no longer fresh, and is dropped when nobody has
 * read it for `scaleCacheEntryLifetime` (1 h).
 */
export const SCALE_CACHE_FRESHNESS_MS = 10 * 60_000;
export const SCALE_CACHE_JITTER_FACTOR = 1;
export const SCALE_CACHE_LIFETIME_MS = 60 * 60_000;
export const SCALE_CACHE_LOOP_PERIOD_MS = 7_000;

export interface ScaleCacheTimings {
  /** How long an entry is fresh, before jitter. */
  freshForMs: number;
  /** Up to this fraction of `freshForMs` is added at random to each entry's freshness. */
  jitterFactor: number;
  /** An entry nobody reads for this long is removed. */
  lifetimeMs: number;
}

export const DEFAULT_SCALE_CACHE_TIMINGS: ScaleCacheTimings = {
  freshForMs: SCALE_CACHE_FRESHNESS_MS,
  jitterFactor: SCALE_CACHE_JITTER_FACTOR,
  lifetimeMs: SCALE_CACHE_LIFETIME_MS,
};

interface Entry<V> {
  value: V;
  refreshAfterMs: number;
  deleteAfterMs: number;
}

/**
 * Cached answers (results and errors alike: `V` holds either), by key. Pure bookkeeping with
 * an injected clock and random source; whoever owns it does the fetching:
 * - a lookup calls `get`; on a miss it fetches and `insert`s what it got;
 * - a background loop fetches `keysToRefresh()` again, `refresh`es each, then
 *   `removeExpired()`.
 * A read never waits for a refresh: a stale entry is served until the loop replaces it.
 */
export class ScaleCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly timings: ScaleCacheTimings;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    options: {
      timings?: ScaleCacheTimings;
      now?: () => number;
      random?: () => number;
    } = {},
  ) {
    this.timings = options.timings ?? DEFAULT_SCALE_CACHE_TIMINGS;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** The cached answer (`found: false` on a miss); a read keeps the entry alive. */
  get(key: string): { found: true; value: V } | { found: false } {
    const entry = this.entries.get(key);
    if (entry === undefined) return { found: false };
    entry.deleteAfterMs = this.now() + this.timings.lifetimeMs;
    return { found: true, value: entry.value };
  }

  /**
   * Stores the answer of a lookup that missed. An entry stored meanwhile (a concurrent
   * lookup) is kept as it is, so its removal time does not move.
   */
  insert(key: string, value: V): void {
    if (this.entries.has(key)) return;
    const nowMs = this.now();
    this.entries.set(key, {
      value,
      refreshAfterMs: this.refreshAfter(nowMs),
      deleteAfterMs: nowMs + this.timings.lifetimeMs,
    });
  }

  /**
   * Replaces the answer after a background fetch, making it fresh again. Its removal time is
   * unchanged (a refresh is not a read), and an entry removed meanwhile is not brought back.
   */
  refresh(key: string, value: V): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    entry.value = value;
    entry.refreshAfterMs = this.refreshAfter(this.now());
  }

  /** The keys whose freshness has passed. */
  keysToRefresh(): string[] {
    const nowMs = this.now();
    return [...this.entries]
      .filter(([, entry]) => nowMs > entry.refreshAfterMs)
      .map(([key]) => key);
  }

  /** Removes the entries nobody has read for the lifetime; returns how many. */
  removeExpired(): number {
    const nowMs = this.now();
    let removed = 0;
    for (const [key, entry] of this.entries)
      if (nowMs > entry.deleteAfterMs) {
        this.entries.delete(key);
        removed += 1;
      }
    return removed;
  }

  get size(): number {
    return this.entries.size;
  }

  /** client-go's `wait.Jitter`: the freshness plus random × factor × freshness. */
  private refreshAfter(nowMs: number): number {
    const { freshForMs, jitterFactor } = this.timings;
    return nowMs + freshForMs + this.random() * jitterFactor * freshForMs;
  }
}
