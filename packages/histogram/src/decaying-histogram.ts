import {
  type HistogramCheckpoint,
  SavedHistogramCheckpoint,
  validateHistogramCheckpoint,
} from './checkpoint.js';
import { formatCheckpointTime } from './checkpoint-time.js';
import { exp2LikeGo } from './go-math.js';
import { elapsedNanosLikeGo, GO_ZERO_TIME_MS, roundLikeGo } from './go-time.js';
import type { HistogramOptions } from './histogram-options.js';
import { requireTimedSample } from './sample-input.js';
import { WeightedBuckets } from './weighted-buckets.js';

/**
 * Once a sample would get a factor above 2^100, weights are renormalised so that doubles
 * never overflow.
 */
const MAX_DECAY_EXPONENT = 100;
const NANOS_PER_MILLI = 1e6;

/**
 * A histogram that forgets: a sample's weight is multiplied by 2^((t - reference) / halfLife),
 * so relative to newer samples it loses half its importance every half-life. Only ratios of
 * weights matter, so instead of shrinking old weights, new ones grow; when they would grow
 * past 2^100 the reference time moves forward and everything is scaled down at once.
 *
 * Times are Unix milliseconds. The reference time starts at Go's zero time and is always a
 * multiple of the half-life counted from it, exactly like upstream.
 */
export class DecayingHistogram extends WeightedBuckets {
  readonly halfLifeMs: number;
  private reference = GO_ZERO_TIME_MS;
  // The factor for the last timestamp seen. Samples often share a timestamp (memory peaks
  // are all filed at their window's end), and the factor for the same inputs is the same
  // bits, so reusing it is exact. The factor starts as a double so that V8 keeps the field
  // unboxed from the start.
  private memoTimeMs = Number.NaN;
  private memoFactor = Number.NaN;

  constructor(options: HistogramOptions, halfLifeMs: number) {
    if (!(Number.isFinite(halfLifeMs) && halfLifeMs > 0)) {
      throw new RangeError(
        `halfLifeMs must be a finite number > 0, got ${halfLifeMs}`,
      );
    }
    super(options);
    this.halfLifeMs = halfLifeMs;
  }

  /** Current decay reference, Unix ms; GO_ZERO_TIME_MS until the first sample. */
  get referenceTimestampMs(): number {
    return this.reference;
  }

  addSample(value: number, weight: number, timeMs: number): void {
    requireTimedSample(value, weight, timeMs);
    if (timeMs !== this.memoTimeMs) this.refreshDecayFactor(timeMs);
    this.addWeight(value, weight * this.memoFactor);
  }

  subtractSample(value: number, weight: number, timeMs: number): void {
    requireTimedSample(value, weight, timeMs);
    if (timeMs !== this.memoTimeMs) this.refreshDecayFactor(timeMs);
    this.subtractWeight(value, weight * this.memoFactor);
  }

  /**
   * Adds `other` into this histogram. The histogram with the older reference is first moved
   * to the newer one; like upstream, that may be `other`, which is then rescaled in place
   * (relative weights are unchanged; buckets scaled below epsilon drop out).
   */
  merge(other: DecayingHistogram): void {
    if (other.halfLifeMs !== this.halfLifeMs) {
      throw new RangeError(
        `cannot merge decaying histograms with different half-lives (${this.halfLifeMs} ms and ${other.halfLifeMs} ms)`,
      );
    }
    if (this.reference < other.reference) {
      this.shiftReference(other.reference);
    } else if (other.reference < this.reference) {
      other.shiftReference(this.reference);
    }
    this.mergeWeights(other);
  }

  /**
   * Makes this what a new histogram with the same options is (no weights, the reference at
   * Go's zero time), keeping its storage: a histogram merged into and read once, over and
   * over (the recommender's per-VPA merges), allocates nothing after its first uses.
   */
  clear(): void {
    this.clearWeights();
    this.reference = GO_ZERO_TIME_MS;
    this.memoTimeMs = Number.NaN;
  }

  clone(): DecayingHistogram {
    const copy = new DecayingHistogram(this.options, this.halfLifeMs);
    copy.copyWeightsFrom(this);
    copy.reference = this.reference;
    return copy;
  }

  /** The checkpoint form (see `Histogram.saveCheckpoint`) plus the reference time. */
  saveCheckpoint(): HistogramCheckpoint {
    // Built in one go rather than spread over checkpointWeights(): same fields, same order.
    return new SavedHistogramCheckpoint(
      formatCheckpointTime(this.reference),
      this.checkpointBucketWeights(),
      this.totalWeight,
    );
  }

  /**
   * Adds a checkpoint's weights (see `Histogram.loadCheckpoint`) and takes over its
   * reference time, as upstream does; meant for a fresh histogram. A CheckpointError, and no
   * change, for anything invalid.
   */
  loadCheckpoint(checkpoint: unknown): void {
    const valid = validateHistogramCheckpoint(
      checkpoint,
      this.options.numBuckets,
    );
    this.addCheckpointWeights(valid);
    this.reference = valid.referenceTimestampMs;
    this.memoTimeMs = Number.NaN;
  }

  /**
   * Sets memoFactor to 2^((timeMs - reference) / halfLife) and memoTimeMs to timeMs, first
   * moving the reference if the factor would pass 2^100. The callers skip it for the memo's
   * own time: the reference has not moved since (every move clears the memo). Storing the
   * factor rather than returning it keeps the double unboxed when V8 does not inline this.
   */
  private refreshDecayFactor(timeMs: number): void {
    if (timeMs > this.reference + MAX_DECAY_EXPONENT * this.halfLifeMs) {
      this.shiftReference(timeMs);
    }
    const age = elapsedNanosLikeGo(this.reference, timeMs);
    this.memoFactor = exp2LikeGo(age / this.halfLifeNanos());
    this.memoTimeMs = timeMs;
  }

  /**
   * Moves the reference to `timeMs` rounded to a multiple of the half-life and scales all
   * weights by the matching power of two. From Go's zero time (the very first sample) the
   * factor underflows to 0, which leaves an empty histogram empty; so a histogram holding
   * no weight (every first sample of a recommender's first cycle, 40,000 at 10,000 VPAs)
   * only moves its reference, without working out a factor that scales nothing.
   */
  private shiftReference(timeMs: number): void {
    const newReference = roundLikeGo(timeMs, this.halfLifeMs);
    if (!this.holdsNoWeight()) {
      const halfLives =
        elapsedNanosLikeGo(newReference, this.reference) / this.halfLifeNanos();
      this.scaleWeights(2 ** Math.floor(halfLives + 0.5));
    }
    this.reference = newReference;
    this.memoTimeMs = Number.NaN;
  }

  /** Go divides by float64(halfLife in ns); see elapsedNanosLikeGo for why we do too. */
  private halfLifeNanos(): number {
    return this.halfLifeMs * NANOS_PER_MILLI;
  }
}
