export interface ReviewCacheOptions<I, V> {
  /** How long an answer is reused. */
  ttlMs: number;
  now?: () => number;
  /**
   * Answers kept at most; when full, expired ones are dropped and, if none was, a new
   * answer is not kept (still returned). So a client spraying random tokens cannot grow
   * the memory without bound.
   */
  maxEntries?: number;
  keyOf: (input: I) => string;
  review: (input: I) => Promise<V>;
}

const DEFAULT_MAX_ENTRIES = 4096;

/**
 * Memoizes an API review (TokenReview, SubjectAccessReview) for `ttlMs`, like the Go
 * webhook caches: the HPA asks the same question every 15 s per metric, and each answer
 * costs the API server a request. Concurrent lookups of one key share one review. A
 * failed review is not cached: the next request asks again.
 */
export function reviewCache<I, V>(
  options: ReviewCacheOptions<I, V>,
): (input: I) => Promise<V> {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const answers = new Map<string, { value: V; expiresMs: number }>();
  const pending = new Map<string, Promise<V>>();

  const remember = (key: string, value: V) => {
    const nowMs = now();
    if (answers.size >= maxEntries)
      for (const [other, entry] of answers)
        if (entry.expiresMs <= nowMs) answers.delete(other);
    if (answers.size < maxEntries)
      answers.set(key, { value, expiresMs: nowMs + options.ttlMs });
  };

  return (input) => {
    const key = options.keyOf(input);
    const cached = answers.get(key);
    if (cached !== undefined) {
      if (cached.expiresMs > now()) return Promise.resolve(cached.value);
      answers.delete(key);
    }
    const inFlight = pending.get(key);
    if (inFlight !== undefined) return inFlight;
    const review = options.review(input).then(
      (value) => {
        pending.delete(key);
        remember(key, value);
        return value;
      },
      (error: unknown) => {
        pending.delete(key);
        throw error;
      },
    );
    pending.set(key, review);
    return review;
  };
}
