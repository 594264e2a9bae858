/**
 * The largest value seen, forgetting exponentially: it follows a rise at once and, after
 * the rise, falls by half every half-life (Autopilot's "rise fast, fall slow").
 */
export class DecayedMax {
  private value = 0;
  private timeMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly halfLifeMs: number) {}

  add(timeMs: number, value: number): void {
    this.value = Math.max(value, this.at(timeMs));
    this.timeMs = timeMs;
  }

  /** The decayed maximum as of `timeMs` (not before the last sample). */
  at(timeMs: number): number {
    if (this.value === 0) return 0;
    const elapsed = Math.max(timeMs - this.timeMs, 0);
    return this.value * 2 ** (-elapsed / this.halfLifeMs);
  }
}
