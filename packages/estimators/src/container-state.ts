import { GO_ZERO_TIME_MS } from '@tandem/histogram';
import type { AggregateContainerState } from './aggregate-container-state.js';
import type { AggregationConfig } from './aggregation-config.js';
import { scaleResourceAmount, toResourceAmount } from './resource-amount.js';

/** One usage measurement of a live container: CPU in millicores, memory in bytes. */
export interface ContainerUsageSample {
  /** Start of the measurement, Unix milliseconds (metrics.k8s.io's `timestamp`). */
  readonly timeMs: number;
  readonly resource: 'cpu' | 'memory';
  /** Millicores for CPU, bytes for memory; a whole number. */
  readonly usage: number;
}

const USAGE_UNITS: Partial<Record<string, string>> = {
  cpu: 'millicores',
  memory: 'bytes',
};

/** An OOM kill that is too old to count (older than the last memory sample by more than one interval). */
export class StaleOomError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaleOomError';
  }
}

/**
 * The state of one live container, feeding its {@link AggregateContainerState}: it drops
 * duplicate and out-of-order samples, and turns memory usage into one peak per memory
 * aggregation interval, replacing a window's peak whenever a higher one arrives.
 */
export class ContainerState {
  readonly aggregate: AggregateContainerState;
  private lastCpuSampleStart = GO_ZERO_TIME_MS;
  private lastMemorySampleStart = GO_ZERO_TIME_MS;
  /** End of the current memory window; the window's peak is filed at this time. */
  private windowEnd = GO_ZERO_TIME_MS;
  private memoryPeak = 0;
  private oomPeak = 0;

  /**
   * Whether a window whose first peak was 0 bytes ignores later samples, as upstream's
   * `addMemorySample` does (`pkg/recommender/model/container.go`). A cgroup's working set is
   * never 0 while the container runs, so upstream rarely meets it; recorded traces that read
   * 0 now and then (Bitbrains' active memory) lose whole days of peaks to it.
   */
  private readonly zeroPeakIgnoresWindow: boolean;

  constructor(
    aggregate: AggregateContainerState,
    { zeroPeakIgnoresWindow = true }: { zeroPeakIgnoresWindow?: boolean } = {},
  ) {
    this.aggregate = aggregate;
    this.zeroPeakIgnoresWindow = zeroPeakIgnoresWindow;
  }

  /** End of the current memory aggregation window; GO_ZERO_TIME_MS before the first memory sample. */
  get windowEndMs(): number {
    return this.windowEnd;
  }

  /** The peak filed for the current window: the larger of the usage peak and the OOM peak. */
  get currentPeakBytes(): number {
    return Math.max(this.memoryPeak, this.oomPeak);
  }

  /**
   * Feeds one sample and tells whether it was used. Like upstream, a negative usage is
   * dropped, and so is a CPU sample not strictly newer than the previous CPU sample or a
   * memory sample older than the previous memory sample (equal times are fine for memory).
   * A non-finite time or a usage that is not a whole number is a RangeError.
   */
  addSample(sample: ContainerUsageSample): boolean {
    const unit = USAGE_UNITS[sample.resource];
    if (unit === undefined) {
      throw new RangeError(
        `sample resource must be "cpu" or "memory", got ${JSON.stringify(sample.resource)}`,
      );
    }
    requireTime(sample.timeMs);
    if (!Number.isSafeInteger(sample.usage)) {
      throw new RangeError(
        `${sample.resource} usage must be a whole number of ${unit}, got ${sample.usage}`,
      );
    }
    return sample.resource === 'cpu'
      ? this.addCpuSample(sample.timeMs, sample.usage)
      : this.addMemorySample(sample.timeMs, sample.usage, false);
  }

  /**
   * Records an OOM kill at `timeMs` of a container that requested `requestedMemoryBytes`: a
   * memory peak of max(used + oomMinBumpUpBytes, used × oomBumpUpRatio), where "used" is the
   * larger of the request and the window's usage peak (not an earlier OOM peak, so repeated
   * OOMs do not compound). Throws {@link StaleOomError} for an OOM more than one memory
   * interval older than the latest memory sample. Returns the bytes filed (what upstream's
   * quality metrics observe as an OOM sample), or undefined when the sample was discarded.
   * `bump` is the aggregate's unless the container's VPA sets its own (upstream's
   * PerVPAConfig `oomBumpUpRatio` / `oomMinBumpUp`, or a Tandem strategy parameter).
   * `capBytes` (Tandem's opt-in, kubernetes/autoscaler#9521) bounds the bump, never the
   * memory used: the sample is at most max(used, capBytes).
   */
  recordOom(
    timeMs: number,
    requestedMemoryBytes: number,
    bump: Pick<AggregationConfig, 'oomBumpUpRatio' | 'oomMinBumpUpBytes'> = this
      .aggregate.config,
    capBytes = Infinity,
  ): number | undefined {
    requireTime(timeMs);
    if (
      !(Number.isSafeInteger(requestedMemoryBytes) && requestedMemoryBytes >= 0)
    ) {
      throw new RangeError(
        `requested memory must be a whole number of bytes >= 0, got ${requestedMemoryBytes}`,
      );
    }
    const interval = this.aggregate.config.memoryAggregationIntervalMs;
    if (
      this.lastMemorySampleStart !== GO_ZERO_TIME_MS &&
      timeMs < this.lastMemorySampleStart - interval
    ) {
      throw new StaleOomError(
        `OOM at ${isoTime(timeMs)} is too old to record: the last memory sample is from ` +
          `${isoTime(this.lastMemorySampleStart)}, more than one memory aggregation interval (${interval} ms) later`,
      );
    }
    const used = Math.max(requestedMemoryBytes, this.memoryPeak);
    const needed = Math.min(
      oomBumpedMemory(used, bump),
      Math.max(used, capBytes),
    );
    return this.addMemorySample(timeMs, needed, true) ? needed : undefined;
  }

  private addCpuSample(timeMs: number, millicores: number): boolean {
    if (millicores < 0 || !(timeMs > this.lastCpuSampleStart)) return false;
    this.aggregate.addCpuSample(timeMs, millicores);
    this.lastCpuSampleStart = timeMs;
    return true;
  }

  /**
   * One peak per window: the first sample opens a window [t, t + interval) and files its
   * usage at the window's end. A higher sample in the same window replaces the filed peak;
   * a sample past the end opens the window containing it (windows stay aligned to the first
   * sample). Upstream quirks kept: a window whose first peak was 0 bytes ignores later
   * samples (unless `zeroPeakIgnoresWindow` is off), and an OOM sample may move
   * lastMemorySampleStart back.
   */
  private addMemorySample(
    timeMs: number,
    bytes: number,
    isOom: boolean,
  ): boolean {
    if (bytes < 0 || (!isOom && timeMs < this.lastMemorySampleStart))
      return false;
    this.lastMemorySampleStart = timeMs;
    if (this.windowEnd === GO_ZERO_TIME_MS) this.windowEnd = timeMs;

    if (timeMs < this.windowEnd) {
      const filedPeak = this.currentPeakBytes;
      if ((filedPeak === 0 && this.zeroPeakIgnoresWindow) || bytes <= filedPeak)
        return true;
      this.aggregate.subtractMemoryPeak(this.windowEnd, filedPeak);
    } else {
      const interval = this.aggregate.config.memoryAggregationIntervalMs;
      const elapsed = timeMs - this.windowEnd;
      this.windowEnd += elapsed - (elapsed % interval) + interval;
      this.memoryPeak = 0;
      this.oomPeak = 0;
    }
    this.aggregate.addMemoryPeak(this.windowEnd, bytes);
    if (isOom) this.oomPeak = bytes;
    else this.memoryPeak = bytes;
    return true;
  }
}

/**
 * The memory an OOM-killed container that used `usedBytes` needs, as upstream bumps it
 * (`model/container.go`, `RecordOOM`): max(used + oomMinBumpUpBytes, used × oomBumpUpRatio).
 */
export function oomBumpedMemory(
  usedBytes: number,
  config: Pick<AggregationConfig, 'oomBumpUpRatio' | 'oomMinBumpUpBytes'>,
): number {
  return Math.max(
    usedBytes + toResourceAmount(config.oomMinBumpUpBytes),
    scaleResourceAmount(usedBytes, config.oomBumpUpRatio),
  );
}

function requireTime(timeMs: number): void {
  if (!Number.isFinite(timeMs)) {
    throw new RangeError(
      `sample time must be finite milliseconds since the Unix epoch, got ${timeMs}`,
    );
  }
}

function isoTime(timeMs: number): string {
  return new Date(timeMs).toISOString();
}
