import { SampleRing } from './sample-ring.js';

export interface HistoryTimings {
  /** Between two samples (the HPA's sync period by default). */
  readonly sampleIntervalMs: number;
  /** How far back samples are kept one by one. */
  readonly recentMs: number;
  /** One point per this much time beyond `recentMs`. */
  readonly coarseStepMs: number;
  /** How far back anything is kept. */
  readonly keepMs: number;
}

/** 15 s samples for an hour, 5-minute means for a day. */
export const DEFAULT_HISTORY_TIMINGS: HistoryTimings = {
  sampleIntervalMs: 15_000,
  recentMs: 60 * 60_000,
  coarseStepMs: 5 * 60_000,
  keepMs: 24 * 60 * 60_000,
};

/**
 * One workload's history at two resolutions: every sample for the last `recentMs`, and the
 * mean of each value over each `coarseStepMs` step for the whole `keepMs`, so a day of
 * 2,000 workloads fits in tens of megabytes.
 */
export class WorkloadHistory {
  private readonly recent: SampleRing;
  private readonly coarse: SampleRing;
  private bucket:
    | { step: number; sums: Map<string, [number, number]> }
    | undefined;

  constructor(
    private readonly timings: HistoryTimings = DEFAULT_HISTORY_TIMINGS,
  ) {
    this.recent = new SampleRing(
      Math.ceil(timings.recentMs / timings.sampleIntervalMs) + 1,
    );
    this.coarse = new SampleRing(
      Math.ceil(timings.keepMs / timings.coarseStepMs),
    );
  }

  record(timeMs: number, values: Readonly<Record<string, number>>): void {
    this.recent.push(timeMs, values);
    const step = Math.floor(timeMs / this.timings.coarseStepMs);
    if (this.bucket !== undefined && this.bucket.step !== step)
      this.closeBucket();
    this.bucket ??= { step, sums: new Map() };
    for (const [name, value] of Object.entries(values)) {
      const sum = this.bucket.sums.get(name) ?? [0, 0];
      sum[0] += value;
      sum[1] += 1;
      this.bucket.sums.set(name, sum);
    }
  }

  /**
   * The points since `sinceMs`, oldest first: the coarse means up to where the recent
   * samples begin, then the samples.
   */
  since(sinceMs: number): { timeMs: number; values: Record<string, number> }[] {
    const recentFrom = this.recent.firstTimeMs() ?? Infinity;
    return [
      ...this.coarse
        .since(sinceMs)
        .filter((point) => point.timeMs < recentFrom),
      ...this.recent.since(sinceMs),
    ];
  }

  bytes(): number {
    return this.recent.bytes() + this.coarse.bytes();
  }

  private closeBucket(): void {
    const { step, sums } = this.bucket as NonNullable<typeof this.bucket>;
    const means: Record<string, number> = {};
    for (const [name, [sum, count]] of sums) means[name] = sum / count;
    // A step's point sits at its middle.
    this.coarse.push((step + 0.5) * this.timings.coarseStepMs, means);
    this.bucket = undefined;
  }
}
