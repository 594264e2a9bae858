import { CheckpointError } from '@tandem/histogram';

/** A {@link DecayedMax} as JSON: the value and when it was taken (Unix ms). */
export interface DecayedMaxSaved {
  readonly value: number;
  readonly timeMs: number;
}

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

  save(): DecayedMaxSaved {
    // -Infinity (nothing added yet) is not JSON: 0 reads back the same, as `at` ignores it.
    return { value: this.value, timeMs: this.value === 0 ? 0 : this.timeMs };
  }

  /** Takes over what `save` wrote; a CheckpointError (and no change) for anything else. */
  restore(saved: unknown): void {
    const fields = (
      typeof saved === 'object' && saved !== null ? saved : {}
    ) as Partial<Record<keyof DecayedMaxSaved, unknown>>;
    const { value, timeMs } = fields;
    if (typeof value !== 'number' || !(value >= 0) || !Number.isFinite(value))
      throw new CheckpointError(
        'memoryMax.value',
        `must be a number >= 0, got ${JSON.stringify(value)}`,
      );
    if (typeof timeMs !== 'number' || !Number.isFinite(timeMs))
      throw new CheckpointError(
        'memoryMax.timeMs',
        `must be Unix milliseconds, got ${JSON.stringify(timeMs)}`,
      );
    this.value = value;
    this.timeMs = value === 0 ? Number.NEGATIVE_INFINITY : timeMs;
  }
}
