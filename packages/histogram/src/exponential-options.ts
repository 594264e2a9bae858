import { integerPowerLikeGo, logLikeGo } from './go-math.js';
import {
  describeBucketing,
  type HistogramOptions,
  requireBucketCount,
  requireBucketIndex,
  requirePositive,
} from './histogram-options.js';

/**
 * Buckets that grow geometrically: bucket 0 is [0, firstBucketSize), bucket i > 0 starts at
 * firstBucketSize * (ratio^i - 1) / (ratio - 1) and is firstBucketSize * ratio^i wide; the
 * last bucket starts at or above maxValue and is open-ended. Relative resolution is the same
 * everywhere, which suits usage spanning several orders of magnitude.
 *
 * Throws a RangeError unless maxValue, firstBucketSize and epsilon are finite and > 0 and
 * ratio is finite and > 1.
 */
export function exponentialHistogramOptions(
  maxValue: number,
  firstBucketSize: number,
  ratio: number,
  epsilon: number,
): HistogramOptions {
  const factory = 'exponentialHistogramOptions';
  requirePositive(factory, 'maxValue', maxValue);
  requirePositive(factory, 'firstBucketSize', firstBucketSize);
  requirePositive(factory, 'epsilon', epsilon);
  if (!(Number.isFinite(ratio) && ratio > 1)) {
    throw new RangeError(
      `${factory}: ratio must be a finite number > 1, got ${ratio}`,
    );
  }
  return describeBucketing(
    new ExponentialBuckets(maxValue, firstBucketSize, ratio, epsilon),
    `exponential(${maxValue}, ${firstBucketSize}, ${ratio}, ${epsilon})`,
  );
}

/** Up to this many buckets, bucket starts are computed once and looked up (8 bytes each). */
const MAX_TABLED_BUCKETS = 4096;

/**
 * findBucket's fast path (see there) files values by the top bits of their double: the
 * binary exponent and the first CELL_BITS bits of the mantissa, a "cell" 1/64 of a binade
 * (at most 1.1 %) wide. It is used only where buckets are at least MIN_FAST_GROWTH wider
 * than the previous one, so a cell spans at most two or three buckets, and up to
 * MAX_CELLS cells (2 bytes each).
 */
const CELL_BITS = 6;
const CELL_SHIFT = 20 - CELL_BITS;
const MIN_FAST_GROWTH = 0.01;
const MAX_CELLS = 1 << 16;
/**
 * Relative distance to a bucket edge below which findBucket takes the logarithm after all.
 * The logarithm's own error and that of the table's starts are below 1e-13 relative for
 * growth ratios >= 1.01 (a few roundings each, amplified at most ~100-fold near bucket 1),
 * so away from this margin both must name the same bucket: the one the real numbers do.
 */
const NEAR_EDGE = 2 ** -30;

// A scratch double viewed as 32-bit words, to read a value's exponent and top mantissa bits.
const scratch = new Float64Array(1);
const scratchWords = new Uint32Array(scratch.buffer);
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

function cellKey(value: number): number {
  scratch[0] = value;
  return (scratchWords[HIGH_WORD] ?? 0) >>> CELL_SHIFT;
}

/** The smallest positive double whose cellKey is `key`. */
function cellStart(key: number): number {
  scratchWords[HIGH_WORD] = key << CELL_SHIFT;
  scratchWords[1 - HIGH_WORD] = 0;
  return scratch[0] ?? Number.NaN;
}

class ExponentialBuckets implements HistogramOptions {
  readonly numBuckets: number;
  readonly epsilon: number;
  private readonly firstBucketSize: number;
  private readonly ratio: number;
  private readonly ratioMinusOne: number;
  /** ln(ratio), computed once: every findBucket divides by it. */
  private readonly logRatio: number;
  /**
   * Every bucket's start, computed once by the same arithmetic as below (so the very same
   * bits): each percentile query ends in a bucketStart, and the integer power is most of its
   * cost. Left empty for absurd bucket counts, which then compute each start.
   */
  private readonly starts: Float64Array;
  /** cellKey of firstBucketSize: cell 0 of `cellBuckets`. */
  private readonly firstCellKey: number;
  /**
   * For every cell from firstBucketSize's to the last bucket start's, the bucket holding
   * the cell's smallest value by the `starts` table. Empty where the fast path is off.
   */
  private readonly cellBuckets: Uint16Array;

  constructor(
    maxValue: number,
    firstBucketSize: number,
    ratio: number,
    epsilon: number,
  ) {
    this.epsilon = epsilon;
    this.firstBucketSize = firstBucketSize;
    this.ratio = ratio;
    this.ratioMinusOne = ratio - 1;
    this.logRatio = logLikeGo(ratio);
    // The bucket holding maxValue, plus one: the first bucket whose start is >= maxValue.
    this.numBuckets =
      Math.ceil(
        logLikeGo(this.bucketCoordinateArgument(maxValue)) / this.logRatio,
      ) + 1;
    requireBucketCount('exponentialHistogramOptions', this.numBuckets);
    this.starts = new Float64Array(
      this.numBuckets <= MAX_TABLED_BUCKETS ? this.numBuckets : 0,
    );
    for (let bucket = 0; bucket < this.starts.length; bucket++) {
      this.starts[bucket] = this.computeBucketStart(bucket);
    }
    this.firstCellKey = cellKey(firstBucketSize);
    this.cellBuckets = this.tabulateCells();
  }

  private tabulateCells(): Uint16Array {
    const starts = this.starts;
    const lastStart = starts[starts.length - 1];
    if (
      starts.length < 2 ||
      lastStart === undefined ||
      !(lastStart < Infinity) ||
      !(this.ratioMinusOne >= MIN_FAST_GROWTH) ||
      !(this.firstBucketSize >= 2 ** -1000)
    ) {
      return new Uint16Array(0);
    }
    const count = cellKey(lastStart) - this.firstCellKey + 1;
    if (count > MAX_CELLS) return new Uint16Array(0);
    const cells = new Uint16Array(count);
    let bucket = 0;
    for (let cell = 0; cell < count; cell++) {
      const low = cellStart(this.firstCellKey + cell);
      while (bucket + 1 < starts.length && (starts[bucket + 1] ?? 0) <= low)
        bucket++;
      cells[cell] = bucket;
    }
    return cells;
  }

  findBucket(value: number): number {
    // Also catches negative values and NaN, which belong to no bucket but the first.
    if (!(value >= this.firstBucketSize)) return 0;
    // Fast path: the value's cell names a bucket at most a step or two below the one whose
    // start-to-next-start range holds the value; unless the value sits within NEAR_EDGE of
    // either edge, that is the bucket the logarithm gives too. Values beyond the last
    // bucket's start, and near edges (such as a start itself), take the logarithm.
    let bucket = this.cellBuckets[cellKey(value) - this.firstCellKey];
    if (bucket !== undefined) {
      const starts = this.starts;
      let next = starts[bucket + 1] ?? Infinity;
      while (value >= next) {
        bucket++;
        next = starts[bucket + 1] ?? Infinity;
      }
      const start = starts[bucket] ?? 0;
      if (
        next < Infinity &&
        value - start > start * NEAR_EDGE &&
        next - value > next * NEAR_EDGE
      ) {
        return bucket;
      }
    }
    return this.bucketByLogarithm(value);
  }

  /** Upstream's computation: the integer part of the value's log base ratio coordinate. */
  private bucketByLogarithm(value: number): number {
    const coordinate =
      logLikeGo(this.bucketCoordinateArgument(value)) / this.logRatio;
    const bucket = Math.trunc(coordinate);
    return bucket < this.numBuckets ? bucket : this.numBuckets - 1;
  }

  bucketStart(bucket: number): number {
    // A typed array answers undefined for anything but an index in range (negative,
    // fractional, NaN), which the slow path then refuses.
    return this.starts[bucket] ?? this.computeBucketStart(bucket);
  }

  private computeBucketStart(bucket: number): number {
    requireBucketIndex(bucket, this.numBuckets);
    if (bucket === 0) return 0;
    const growth = integerPowerLikeGo(this.ratio, bucket) - 1;
    return (this.firstBucketSize * growth) / this.ratioMinusOne;
  }

  /** value * (ratio - 1) / firstBucketSize + 1, whose log base ratio is the (fractional) bucket. */
  private bucketCoordinateArgument(value: number): number {
    return (value * this.ratioMinusOne) / this.firstBucketSize + 1;
  }
}
