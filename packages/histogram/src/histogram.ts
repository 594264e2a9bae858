import {
  type HistogramCheckpoint,
  validateHistogramCheckpoint,
} from './checkpoint.js';
import type { HistogramOptions } from './histogram-options.js';
import { requireSampleValue, requireSampleWeight } from './sample-input.js';
import { WeightedBuckets } from './weighted-buckets.js';

/** A plain weighted histogram: samples keep the weight they were added with. */
export class Histogram extends WeightedBuckets {
  constructor(options: HistogramOptions) {
    super(options);
  }

  /** Adds `weight` to the bucket of `value`. RangeError for a non-finite value or a negative/non-finite weight. */
  addSample(value: number, weight: number): void {
    requireSampleValue(value);
    requireSampleWeight(weight);
    this.addWeight(value, weight);
  }

  /**
   * Removes `weight` from the bucket of `value` and from the total; what would drop below
   * epsilon becomes 0. Same input checks as addSample.
   */
  subtractSample(value: number, weight: number): void {
    requireSampleValue(value);
    requireSampleWeight(weight);
    this.subtractWeight(value, weight);
  }

  /** Adds all of `other`'s weights; RangeError unless both use the same bucketing. */
  merge(other: Histogram): void {
    this.mergeWeights(other);
  }

  /** Multiplies every weight by `factor` (finite, >= 0); percentiles stay unless buckets drop below epsilon. */
  scale(factor: number): void {
    if (!(factor >= 0 && factor < Infinity)) {
      throw new RangeError(
        `scale factor must be a finite number >= 0, got ${factor}`,
      );
    }
    this.scaleWeights(factor);
  }

  clone(): Histogram {
    const copy = new Histogram(this.options);
    copy.copyWeightsFrom(this);
    return copy;
  }

  /**
   * The checkpoint form: weights relative to the heaviest bucket, which stores
   * MAX_CHECKPOINT_WEIGHT, rounded half up, zeros left out. Lossy on purpose (upstream
   * format); `totalWeight` is exact.
   */
  saveCheckpoint(): HistogramCheckpoint {
    return this.checkpointWeights();
  }

  /**
   * Adds a checkpoint's weights (normally to a fresh histogram), rescaled so that they sum to
   * its `totalWeight`. Validates the whole checkpoint first: a CheckpointError naming the bad
   * field, and no change, for anything invalid.
   */
  loadCheckpoint(checkpoint: unknown): void {
    this.addCheckpointWeights(
      validateHistogramCheckpoint(checkpoint, this.options.numBuckets),
    );
  }
}
