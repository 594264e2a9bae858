/** Capped exponential backoff with jitter, as pure functions. */
export interface BackoffOptions {
  /** Delay before the first retry, in milliseconds. */
  initialMs: number;
  /** Upper bound of the delay (before jitter), in milliseconds. */
  maxMs: number;
  /** Growth factor per consecutive failure. */
  factor: number;
  /** Fraction of the delay added at random: 0.2 means up to +20 %. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  initialMs: 500,
  maxMs: 30_000,
  factor: 2,
  jitter: 0.2,
};

/**
 * The delay before retry number `attempt` (1 = the first retry after one failure):
 * `min(maxMs, initialMs * factor^(attempt-1)) * (1 + jitter * random)`.
 * `random` is a value in [0, 1), injected so the function stays pure.
 */
export function backoffDelayMs(
  attempt: number,
  random: number,
  options: BackoffOptions = DEFAULT_BACKOFF,
): number {
  const { initialMs, maxMs, factor, jitter } = options;
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  // Cap before multiplying further so large attempt counts never overflow to Infinity.
  const base = Math.min(maxMs, initialMs * Math.pow(factor, exponent));
  const capped = Number.isFinite(base) ? base : maxMs;
  const r = Math.min(Math.max(random, 0), 1);
  return capped * (1 + Math.max(0, jitter) * r);
}
