/**
 * A token bucket (Go's `x/time/rate` limiter as the VPA components use it): `ratePerSecond`
 * tokens a second up to `burst` stored; full at start. A rate of 0 or less means no limit.
 * `reserve` takes a token now and says how long to wait before using it, so reservations
 * queue up in order, as `Limiter.Wait` does.
 */
export class TokenBucket {
  private tokens: number;
  private lastMs: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    if (ratePerSecond > 0 && !(burst >= 1))
      throw new RangeError(
        `a rate limit of ${ratePerSecond}/s needs a burst of at least 1, got ${burst}`,
      );
    this.tokens = burst;
    this.lastMs = now();
  }

  get unlimited(): boolean {
    return this.ratePerSecond <= 0;
  }

  /**
   * Takes a token and returns the milliseconds to wait before acting; when that wait would
   * be longer than `maxWaitMs`, takes nothing and returns undefined.
   */
  reserve(maxWaitMs = Number.POSITIVE_INFINITY): number | undefined {
    if (this.unlimited) return 0;
    const nowMs = this.now();
    const refilled = ((nowMs - this.lastMs) * this.ratePerSecond) / 1000;
    this.tokens = Math.min(this.burst, this.tokens + Math.max(0, refilled));
    this.lastMs = Math.max(this.lastMs, nowMs);
    const waitMs =
      this.tokens >= 1 ? 0 : ((1 - this.tokens) * 1000) / this.ratePerSecond;
    if (waitMs > maxWaitMs) return undefined;
    this.tokens -= 1;
    return waitMs;
  }
}
