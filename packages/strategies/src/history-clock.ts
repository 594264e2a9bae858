/**
 * The clock a usage history ages by: real time, except that a gap between two samples
 * longer than `longestGapMs` counts as `longestGapMs`. A decaying histogram weighs a sample
 * by its age, so after days of silence (a workload scaled to zero, a task moved between
 * machines) the first sample would outweigh the whole history by 2^(gap / half-life) and
 * drag the recommendation to it; with this clock the history waits for the series to come
 * back instead. Upstream's aggregate ages by real time (`AddSample` in
 * `pkg/recommender/util/decaying_histogram.go` weighs by the sample's time).
 */
export class HistoryClock {
  /** Real time of the latest sample; undefined before the first. */
  private lastRealMs: number | undefined;
  /** How much real time the gaps so far did not count. */
  private skippedMs: number;

  constructor(
    readonly longestGapMs: number,
    saved: HistoryClockState = { skippedMs: 0 },
  ) {
    this.lastRealMs = saved.lastRealMs;
    this.skippedMs = saved.skippedMs;
  }

  /** The history time of a sample at `realMs`, moving the clock on past a long gap. */
  sample(realMs: number): number {
    const last = this.lastRealMs;
    if (last === undefined || realMs > last) {
      if (last !== undefined && realMs - last > this.longestGapMs)
        this.skippedMs += realMs - last - this.longestGapMs;
      this.lastRealMs = realMs;
    }
    return realMs - this.skippedMs;
  }

  /**
   * The history time of `realMs` without moving the clock: what garbage collection compares
   * the history's last sample with, so a silence expires it after as long as it would
   * without this clock.
   */
  at(realMs: number): number {
    return realMs - this.skippedMs;
  }

  /** Whether any sample arrived. */
  get started(): boolean {
    return this.lastRealMs !== undefined;
  }

  save(): HistoryClockState {
    return { skippedMs: this.skippedMs, lastRealMs: this.lastRealMs };
  }
}

export interface HistoryClockState {
  readonly skippedMs: number;
  readonly lastRealMs?: number;
}
