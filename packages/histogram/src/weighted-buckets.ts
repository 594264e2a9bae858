import {
  type HistogramCheckpoint,
  MAX_CHECKPOINT_WEIGHT,
  type ValidatedHistogramCheckpoint,
} from './checkpoint.js';
import {
  type HistogramOptions,
  requireBucketIndex,
  sameBucketing,
} from './histogram-options.js';

/**
 * Bucket weights with upstream's exact semantics (epsilon-aware min/max buckets, "safe"
 * subtraction, percentiles at upper bucket edges), shared by `Histogram` and
 * `DecayingHistogram`. Inputs are checked by the subclasses' public methods.
 *
 * Memory layout: upstream keeps a dense 176-slot float64 array per histogram. Real usage
 * occupies a narrow band of buckets, so we store only a window of consecutive buckets that
 * covers every bucket with a non-zero weight, and grow it when a sample lands outside. The
 * window must cover non-zero weights outside [minBucket, maxBucket] too: upstream leaves
 * sub-epsilon residue there (a tiny sample, a scaled-down bucket) and later samples add to
 * it, so dropping it would change the numbers. Buckets outside the window weigh exactly 0,
 * which is also what the dense array holds there, so every result is bit-identical.
 *
 * The window is a plain array of numbers, which V8 keeps as unboxed doubles: an array
 * object plus 8 bytes per bucket. A Float64Array would add a typed-array object, an
 * ArrayBuffer and, past 64 bytes, an off-heap backing store: measured on realistic usage,
 * about 1000 instead of 680 bytes per aggregate (two histograms), for no gain in speed.
 */
export abstract class WeightedBuckets {
  readonly options: HistogramOptions;
  /** Weights of buckets windowStart .. windowStart + weights.length - 1. */
  private weights: number[] = [];
  private windowStart = 0;
  private total = 0;
  private min: number;
  private max = 0;
  /** Counts every change of the weights, so a stale `CUMULATIVE` entry is told apart. */
  private changes = 0;

  protected constructor(options: HistogramOptions) {
    this.options = options;
    this.min = options.numBuckets - 1;
  }

  /** Sum of all weights added, minus what was subtracted. */
  get totalWeight(): number {
    return this.total;
  }

  /** First bucket weighing at least epsilon; the last bucket when empty. */
  get minBucket(): number {
    return this.min;
  }

  /** Last bucket weighing at least epsilon; bucket 0 when empty. */
  get maxBucket(): number {
    return this.max;
  }

  /** The weight currently held by `bucket` (0 for buckets never touched). */
  bucketWeight(bucket: number): number {
    requireBucketIndex(bucket, this.options.numBuckets);
    return this.weightAt(bucket);
  }

  /** True when no bucket weighs at least epsilon. */
  isEmpty(): boolean {
    return this.weightAt(this.min) < this.options.epsilon;
  }

  /**
   * True when scaling would change nothing but the change count: no bucket between the min
   * and the max bucket (they are crossed only when nothing weighs epsilon) and no total,
   * not even a residue below epsilon. A new or cleared histogram is so.
   */
  protected holdsNoWeight(): boolean {
    return this.min > this.max && this.total === 0;
  }

  /**
   * The upper edge of the bucket where the cumulative weight first reaches p * totalWeight
   * (the start of the open-ended last bucket for that one); 0 for an empty histogram. Any p
   * is accepted: p <= 0 gives the end of the min bucket, p >= 1 the end of the max bucket.
   */
  percentile(p: number): number {
    if (Number.isNaN(p))
      throw new RangeError('percentile must be a number, got NaN');
    if (this.isEmpty()) return 0;
    const threshold = p * this.total;
    // Upstream walks from the min bucket adding weights until the sum reaches the
    // threshold. The running sums, added in that very order, are kept between queries of
    // an unchanged histogram (the estimators ask each for several percentiles in a row),
    // and never decrease (weights are >= 0), so the first one to reach the threshold is
    // found by bisection: the same slot, the same bits.
    const sums = this.cumulativeWeights();
    let slot = 0;
    let end = this.max - this.min;
    while (slot < end) {
      const middle = (slot + end) >>> 1;
      if ((sums[middle] ?? 0) >= threshold) end = middle;
      else slot = middle + 1;
    }
    const bucket = this.min + slot;
    const lastBucket = this.options.numBuckets - 1;
    return this.options.bucketStart(bucket < lastBucket ? bucket + 1 : bucket);
  }

  protected addWeight(value: number, weight: number): void {
    this.changes++;
    const bucket = this.options.findBucket(value);
    let slot = bucket - this.windowStart;
    if (slot < 0 || slot >= this.weights.length) {
      this.widenWindow(bucket, bucket);
      slot = bucket - this.windowStart;
    }
    const bucketWeight = (this.weights[slot] ?? 0) + weight;
    this.weights[slot] = bucketWeight;
    this.total += weight;
    if (bucketWeight >= this.options.epsilon) {
      if (bucket < this.min) this.min = bucket;
      if (bucket > this.max) this.max = bucket;
    }
  }

  /** Whatever would drop below epsilon becomes exactly 0, so weights never go negative. */
  protected subtractWeight(value: number, weight: number): void {
    this.changes++;
    const epsilon = this.options.epsilon;
    const slot = this.options.findBucket(value) - this.windowStart;
    this.total = subtractToEpsilon(this.total, weight, epsilon);
    // Outside the window the weight is 0 and would stay 0: nothing to store.
    if (slot >= 0 && slot < this.weights.length) {
      this.weights[slot] = subtractToEpsilon(
        this.weights[slot] ?? 0,
        weight,
        epsilon,
      );
    }
    this.updateMinAndMax();
  }

  /**
   * Like upstream, copies only `other`'s buckets between its min and max bucket, and widens
   * the min/max buckets without an epsilon check.
   */
  protected mergeWeights(other: WeightedBuckets): void {
    this.changes++;
    if (!sameBucketing(this.options, other.options)) {
      throw new RangeError(
        'cannot merge histograms with different bucketing options',
      );
    }
    if (other.min <= other.max) {
      this.widenWindow(other.min, other.max);
      for (let bucket = other.min; bucket <= other.max; bucket++) {
        const slot = bucket - this.windowStart;
        this.weights[slot] = (this.weights[slot] ?? 0) + other.weightAt(bucket);
      }
    }
    this.total += other.total;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }

  /** Multiplies the weights between the min and max bucket, and the total, by `factor` >= 0. */
  protected scaleWeights(factor: number): void {
    this.changes++;
    for (let bucket = this.min; bucket <= this.max; bucket++) {
      const slot = bucket - this.windowStart;
      this.weights[slot] = (this.weights[slot] ?? 0) * factor;
    }
    this.total *= factor;
    this.updateMinAndMax();
  }

  /**
   * Empties the weights, keeping the window's array (all zeros): buckets weighing 0 inside
   * the window are what buckets outside it are, so every later result is the one a new
   * histogram would give. `changes` moves on, so no cached running sums are reused.
   */
  protected clearWeights(): void {
    this.changes++;
    // A loop, not `fill(0)`: V8's fill gives a double array new small-integer storage,
    // which the next weight stored turns back into doubles, two allocations per clear
    // (the recommender clears and merges into its scratch aggregates twice per VPA and
    // container a cycle: 0.9 GiB a steady cycle at 100,000 VPAs).
    const weights = this.weights;
    for (let slot = 0; slot < weights.length; slot++) weights[slot] = 0;
    this.total = 0;
    this.min = this.options.numBuckets - 1;
    this.max = 0;
  }

  /** Makes this an exact copy of `other`'s weights. */
  protected copyWeightsFrom(other: WeightedBuckets): void {
    this.changes++;
    this.weights = other.weights.slice();
    this.windowStart = other.windowStart;
    this.total = other.total;
    this.min = other.min;
    this.max = other.max;
  }

  /**
   * Weights relative to the heaviest bucket, scaled so that it stores MAX_CHECKPOINT_WEIGHT,
   * rounded half up; buckets rounding to 0 are left out. `totalWeight` is exact.
   */
  protected checkpointWeights(): HistogramCheckpoint {
    return {
      bucketWeights: this.checkpointBucketWeights(),
      totalWeight: this.total,
    };
  }

  /** The `bucketWeights` of {@link checkpointWeights}. */
  protected checkpointBucketWeights(): Record<string, number> {
    const weights = this.weights;
    const start = this.windowStart;
    let heaviest = 0;
    for (let bucket = this.min; bucket <= this.max; bucket++) {
      // Weights are never NaN, so this is Math.max (and upstream's comparison).
      const weight = weights[bucket - start] ?? 0;
      if (weight > heaviest) heaviest = weight;
    }
    const ratio = MAX_CHECKPOINT_WEIGHT / heaviest;
    // Integer keys, not their strings: V8 stores them as elements either way, and this
    // spares formatting each index only to parse it back.
    const bucketWeights: Record<string, number> = {};
    for (let bucket = this.min; bucket <= this.max; bucket++) {
      const stored = Math.floor((weights[bucket - start] ?? 0) * ratio + 0.5);
      if (stored > 0) bucketWeights[bucket] = stored;
    }
    return bucketWeights;
  }

  /** Adds a validated checkpoint's weights, rescaled so that they sum to its total weight. */
  protected addCheckpointWeights(
    checkpoint: ValidatedHistogramCheckpoint,
  ): void {
    this.changes++;
    const { bucketWeights, storedWeightSum, totalWeight } = checkpoint;
    if (storedWeightSum === 0) return;
    const ratio = totalWeight / storedWeightSum;
    let lowest = Infinity;
    let highest = 0;
    for (const [bucket] of bucketWeights) {
      lowest = Math.min(lowest, bucket);
      highest = Math.max(highest, bucket);
    }
    this.widenWindow(lowest, highest);
    for (const [bucket, storedWeight] of bucketWeights) {
      const slot = bucket - this.windowStart;
      this.weights[slot] = (this.weights[slot] ?? 0) + storedWeight * ratio;
    }
    if (lowest < this.min) this.min = lowest;
    if (highest > this.max) this.max = highest;
    this.total += totalWeight;
    // Rounding can leave the min bucket below epsilon (upstream issue #7726).
    this.updateMinAndMax();
  }

  /**
   * Running sums of the weights from the min bucket up to the one before the max bucket
   * (`CUMULATIVE.sums[i]`: buckets min..min + i), worked out again only when this is not
   * the histogram they were last worked out for or its weights changed since.
   */
  private cumulativeWeights(): Float64Array {
    const length = this.max - this.min;
    if (CUMULATIVE.of === this && CUMULATIVE.changes === this.changes)
      return CUMULATIVE.sums;
    if (CUMULATIVE.sums.length < length)
      CUMULATIVE.sums = new Float64Array(length);
    const { sums } = CUMULATIVE;
    const weights = this.weights;
    const first = this.min - this.windowStart;
    let cumulative = 0;
    for (let index = 0; index < length; index++) {
      cumulative += weights[first + index] ?? 0;
      sums[index] = cumulative;
    }
    CUMULATIVE.of = this;
    CUMULATIVE.changes = this.changes;
    return sums;
  }

  private weightAt(bucket: number): number {
    const slot = bucket - this.windowStart;
    return slot >= 0 && slot < this.weights.length
      ? (this.weights[slot] ?? 0)
      : 0;
  }

  /** Makes the stored window cover buckets from..to (and everything it covered before). */
  private widenWindow(from: number, to: number): void {
    if (this.weights.length === 0) {
      this.weights = zeroWeights(to - from + 1);
      this.windowStart = from;
      return;
    }
    const oldEnd = this.windowStart + this.weights.length - 1;
    const start = Math.min(from, this.windowStart);
    const end = Math.max(to, oldEnd);
    if (start === this.windowStart && end === oldEnd) return;
    const widened = zeroWeights(end - start + 1);
    const weights = this.weights;
    const offset = this.windowStart - start;
    // A counted loop, not forEach with a closure: a recommender's first cycle widens tens
    // of thousands of windows while this code is still cold.
    for (let slot = 0; slot < weights.length; slot++)
      widened[offset + slot] = weights[slot] ?? 0;
    this.weights = widened;
    this.windowStart = start;
  }

  /**
   * Moves the min bucket up and the max bucket down past buckets lighter than epsilon (to
   * the last bucket and bucket 0 when nothing is left), as upstream does after any
   * operation that lowers weights.
   */
  private updateMinAndMax(): void {
    this.min =
      this.firstHeavyBucketFrom(this.min) ?? this.options.numBuckets - 1;
    this.max = this.lastHeavyBucketUpTo(this.max) ?? 0;
  }

  // Buckets outside the window weigh 0, so the scans below never need to leave it.

  private firstHeavyBucketFrom(start: number): number | undefined {
    const windowEnd = this.windowStart + this.weights.length;
    for (
      let bucket = Math.max(start, this.windowStart);
      bucket < windowEnd;
      bucket++
    ) {
      if (this.weightAt(bucket) >= this.options.epsilon) return bucket;
    }
    return undefined;
  }

  private lastHeavyBucketUpTo(start: number): number | undefined {
    const windowLast = this.windowStart + this.weights.length - 1;
    for (
      let bucket = Math.min(start, windowLast);
      bucket >= this.windowStart;
      bucket--
    ) {
      if (this.weightAt(bucket) >= this.options.epsilon) return bucket;
    }
    return undefined;
  }
}

/**
 * The running sums of the histogram last asked for a percentile: one entry for the whole
 * process rather than an array per histogram, whose bytes would count on every aggregate
 * state the recommender holds; a histogram's percentiles are asked back to back.
 */
const CUMULATIVE: {
  of: WeightedBuckets | undefined;
  changes: number;
  sums: Float64Array;
} = { of: undefined, changes: 0, sums: new Float64Array(256) };

/**
 * Zeros held as unboxed doubles (the literal's 0.5 makes V8 pick double elements, which
 * storing 0 keeps), grown when a longer window is asked for.
 */
const doubleZeros = [0.5];
doubleZeros.pop();

/**
 * Exactly `length` zeros, as doubles from the start. A slice of a double array is one
 * allocation of its exact length; `new Array(length).fill(0)` made small-integer elements
 * that the first weight stored turned into doubles, a second allocation per window (a
 * first recommender cycle makes one or more windows for each of its 40,000 histograms).
 * Growing by push or spread would leave spare capacity.
 */
function zeroWeights(length: number): number[] {
  while (doubleZeros.length < length) doubleZeros.push(0);
  return doubleZeros.slice(0, length);
}

/** `value - amount`, or exactly 0 when that drops below epsilon. */
function subtractToEpsilon(
  value: number,
  amount: number,
  epsilon: number,
): number {
  const difference = value - amount;
  return difference < epsilon ? 0 : difference;
}
