import {
  CheckpointError,
  CPU_HISTOGRAM_OPTIONS,
  DecayingHistogram,
  formatCheckpointTime,
  GO_ZERO_TIME_MS,
  MEMORY_HISTOGRAM_OPTIONS,
  MIN_SAMPLE_WEIGHT,
} from '@tandem/histogram';
import {
  type AggregationConfig,
  DEFAULT_AGGREGATION_CONFIG,
  requireValidAggregationConfig,
} from './aggregation-config.js';
import {
  type AggregateCheckpointStatus,
  readCheckpointStatus,
  SavedAggregateCheckpoint,
  SUPPORTED_CHECKPOINT_VERSION,
} from './checkpoint-status.js';
import { coresFromCpuAmount } from './resource-amount.js';

/** Every memory peak counts once, whatever its age (age is what the decay is for). */
const MEMORY_PEAK_WEIGHT = 1;

/**
 * The usage history of one container name across all pods that share it (upstream keys
 * aggregates by namespace, container name and pod labels): a decaying histogram of CPU
 * usage samples, a decaying histogram of per-interval memory peaks, and the CPU sample
 * timeline that drives confidence. Fed by {@link ContainerState}s or restored from a checkpoint.
 *
 * Times are Unix milliseconds; GO_ZERO_TIME_MS stands for "never", as Go's zero time does
 * upstream.
 */
export class AggregateContainerState {
  readonly config: AggregationConfig;
  readonly cpuHistogram: DecayingHistogram;
  /** One sample per container per memory aggregation interval: that interval's peak. */
  readonly memoryHistogram: DecayingHistogram;
  /** When the aggregate was created: what expiry counts from while it has no CPU samples. */
  readonly creationTimeMs: number;
  private firstSampleStart = GO_ZERO_TIME_MS;
  private lastSampleStart = GO_ZERO_TIME_MS;
  private samplesCount = 0;

  constructor(
    creationTimeMs: number,
    config: AggregationConfig = DEFAULT_AGGREGATION_CONFIG,
  ) {
    if (!Number.isFinite(creationTimeMs)) {
      throw new RangeError(
        `creationTimeMs must be finite milliseconds, got ${creationTimeMs}`,
      );
    }
    requireValidAggregationConfig(config);
    this.config = config;
    this.creationTimeMs = creationTimeMs;
    this.cpuHistogram = new DecayingHistogram(
      CPU_HISTOGRAM_OPTIONS,
      config.cpuHistogramDecayHalfLifeMs,
    );
    this.memoryHistogram = new DecayingHistogram(
      MEMORY_HISTOGRAM_OPTIONS,
      config.memoryHistogramDecayHalfLifeMs,
    );
  }

  /**
   * Restores the aggregate saved by {@link saveCheckpoint} (or by upstream's recommender).
   * The version must be "v3"; anything invalid is a CheckpointError naming the field.
   * Upstream keeps restored state outside garbage collection, so its creation time rarely
   * matters; it defaults to Go's zero time.
   */
  static fromCheckpoint(
    status: unknown,
    config: AggregationConfig = DEFAULT_AGGREGATION_CONFIG,
    creationTimeMs: number = GO_ZERO_TIME_MS,
  ): AggregateContainerState {
    const fields = readCheckpointStatus(status);
    const state = new AggregateContainerState(creationTimeMs, config);
    loadHistogram(
      state.cpuHistogram,
      fields.cpuHistogram,
      'status.cpuHistogram',
    );
    loadHistogram(
      state.memoryHistogram,
      fields.memoryHistogram,
      'status.memoryHistogram',
    );
    state.firstSampleStart = fields.firstSampleStartMs;
    state.lastSampleStart = fields.lastSampleStartMs;
    state.samplesCount = fields.totalSamplesCount;
    return state;
  }

  /** Start of the earliest CPU sample; GO_ZERO_TIME_MS before the first one. */
  get firstSampleStartMs(): number {
    return this.firstSampleStart;
  }

  /** Start of the latest CPU sample; GO_ZERO_TIME_MS before the first one. */
  get lastSampleStartMs(): number {
    return this.lastSampleStart;
  }

  /** CPU samples aggregated so far (memory peaks and OOMs do not count, as upstream). */
  get totalSamplesCount(): number {
    return this.samplesCount;
  }

  /**
   * Adds one CPU usage sample. Every sample weighs the same (upstream since VPA 1.4); the
   * histogram holds cores. Normally called through {@link ContainerState.addSample}, which
   * drops duplicates and out-of-order samples first.
   */
  addCpuSample(timeMs: number, millicores: number): void {
    this.cpuHistogram.addSample(
      coresFromCpuAmount(millicores),
      MIN_SAMPLE_WEIGHT,
      timeMs,
    );
    if (timeMs > this.lastSampleStart) this.lastSampleStart = timeMs;
    if (
      this.firstSampleStart === GO_ZERO_TIME_MS ||
      timeMs < this.firstSampleStart
    ) {
      this.firstSampleStart = timeMs;
    }
    this.samplesCount += 1;
  }

  /** Files a memory peak at `timeMs` (the end of its aggregation window). */
  addMemoryPeak(timeMs: number, bytes: number): void {
    this.memoryHistogram.addSample(bytes, MEMORY_PEAK_WEIGHT, timeMs);
  }

  /** Withdraws a peak filed by addMemoryPeak, when a higher one replaces it. */
  subtractMemoryPeak(timeMs: number, bytes: number): void {
    this.memoryHistogram.subtractSample(bytes, MEMORY_PEAK_WEIGHT, timeMs);
  }

  /**
   * Adds `other`'s history: histograms merged (which, like upstream, may rescale `other`'s
   * histograms to a newer reference without changing what they say), earliest first sample,
   * latest last sample, counts summed.
   */
  merge(other: AggregateContainerState): void {
    this.cpuHistogram.merge(other.cpuHistogram);
    this.memoryHistogram.merge(other.memoryHistogram);
    if (
      this.firstSampleStart === GO_ZERO_TIME_MS ||
      (other.firstSampleStart !== GO_ZERO_TIME_MS &&
        other.firstSampleStart < this.firstSampleStart)
    ) {
      this.firstSampleStart = other.firstSampleStart;
    }
    if (other.lastSampleStart > this.lastSampleStart)
      this.lastSampleStart = other.lastSampleStart;
    this.samplesCount += other.samplesCount;
  }

  /**
   * Makes this an aggregate without history (no samples, both histograms cleared), as a new
   * one is, keeping its storage and creation time: what the recommender merges each VPA's
   * history into, reused from one VPA to the next.
   */
  clear(): void {
    this.cpuHistogram.clear();
    this.memoryHistogram.clear();
    this.firstSampleStart = GO_ZERO_TIME_MS;
    this.lastSampleStart = GO_ZERO_TIME_MS;
    this.samplesCount = 0;
  }

  /** True until the first CPU sample. */
  isEmpty(): boolean {
    return this.samplesCount === 0;
  }

  /**
   * True once the whole memory aggregation window (interval × count, 8 days by default) has
   * passed since the last CPU sample, or since creation for an aggregate without any.
   */
  isExpired(nowMs: number): boolean {
    const windowMs =
      this.config.memoryAggregationIntervalMs *
      this.config.memoryAggregationIntervalCount;
    const since = this.isEmpty() ? this.creationTimeMs : this.lastSampleStart;
    return nowMs - since >= windowMs;
  }

  /** The `status` of a VerticalPodAutoscalerCheckpoint for this aggregate, written at `nowMs`. */
  saveCheckpoint(nowMs: number): AggregateCheckpointStatus {
    return new SavedAggregateCheckpoint(
      formatCheckpointTime(nowMs),
      SUPPORTED_CHECKPOINT_VERSION,
      this.cpuHistogram.saveCheckpoint(),
      this.memoryHistogram.saveCheckpoint(),
      formatCheckpointTime(this.firstSampleStart),
      formatCheckpointTime(this.lastSampleStart),
      this.samplesCount,
    );
  }
}

function loadHistogram(
  histogram: DecayingHistogram,
  checkpoint: unknown,
  field: string,
): void {
  try {
    histogram.loadCheckpoint(checkpoint);
  } catch (error) {
    throw error instanceof CheckpointError ? error.within(field) : error;
  }
}
