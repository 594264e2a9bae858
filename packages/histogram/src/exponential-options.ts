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

class ExponentialBuckets implements HistogramOptions {
  readonly numBuckets: number;
  readonly epsilon: number;
  private readonly firstBucketSize: number;
  private readonly ratio: number;
  private readonly ratioMinusOne: number;
  /** ln(ratio), computed once: every findBucket divides by it. */
  private readonly logRatio: number;

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
  }

  findBucket(value: number): number {
    // Also catches negative values and NaN, which belong to no bucket but the first.
    if (!(value >= this.firstBucketSize)) return 0;
    const coordinate =
      logLikeGo(this.bucketCoordinateArgument(value)) / this.logRatio;
    const bucket = Math.trunc(coordinate);
    return bucket < this.numBuckets ? bucket : this.numBuckets - 1;
  }

  bucketStart(bucket: number): number {
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
