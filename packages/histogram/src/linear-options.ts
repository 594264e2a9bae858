import {
  describeBucketing,
  type HistogramOptions,
  requireBucketCount,
  requireBucketIndex,
  requirePositive,
} from './histogram-options.js';

/**
 * Equal-width buckets: bucket i is [i * bucketSize, (i + 1) * bucketSize), and the last one,
 * starting at or above maxValue, is open-ended. Upstream only uses these in tests; so do we,
 * mostly, because the numbers are easy to follow.
 *
 * Throws a RangeError unless all arguments are finite and > 0.
 */
export function linearHistogramOptions(
  maxValue: number,
  bucketSize: number,
  epsilon: number,
): HistogramOptions {
  const factory = 'linearHistogramOptions';
  requirePositive(factory, 'maxValue', maxValue);
  requirePositive(factory, 'bucketSize', bucketSize);
  requirePositive(factory, 'epsilon', epsilon);
  return describeBucketing(
    new LinearBuckets(maxValue, bucketSize, epsilon),
    `linear(${maxValue}, ${bucketSize}, ${epsilon})`,
  );
}

class LinearBuckets implements HistogramOptions {
  readonly numBuckets: number;
  readonly epsilon: number;
  private readonly bucketSize: number;

  constructor(maxValue: number, bucketSize: number, epsilon: number) {
    this.numBuckets = Math.ceil(maxValue / bucketSize) + 1;
    this.epsilon = epsilon;
    this.bucketSize = bucketSize;
    requireBucketCount('linearHistogramOptions', this.numBuckets);
  }

  findBucket(value: number): number {
    const bucket = Math.trunc(value / this.bucketSize);
    // Negative values and NaN go to the first bucket. (Go converts values beyond the int64
    // range in a platform-defined way; here they simply go to the last bucket.)
    if (!(bucket > 0)) return 0;
    return bucket < this.numBuckets ? bucket : this.numBuckets - 1;
  }

  bucketStart(bucket: number): number {
    requireBucketIndex(bucket, this.numBuckets);
    return bucket * this.bucketSize;
  }
}
