import type { ResourceAmounts } from '@tandem/estimators';

/**
 * What the user declared for one series over time, as change points in time order: the
 * size at `timesMs[i]` holds until the next change. Before the first change point the
 * first size holds (a capacity file usually starts at the first sample).
 */
export interface DeclaredSizes {
  readonly timesMs: readonly number[];
  readonly sizes: readonly ResourceAmounts[];
}

/** Reads declared sizes at non-decreasing times, in one pass over the change points. */
export class DeclaredCursor {
  private index = 0;

  constructor(private readonly declared: DeclaredSizes | undefined) {}

  at(timeMs: number): ResourceAmounts | undefined {
    const declared = this.declared;
    if (declared === undefined) return undefined;
    while (
      this.index + 1 < declared.timesMs.length &&
      (declared.timesMs[this.index + 1] ?? Infinity) <= timeMs
    )
      this.index += 1;
    return declared.sizes[this.index];
  }
}
