/** How a histogram maps values to buckets. Implementations are immutable. */
export interface HistogramOptions {
  /** Number of buckets; valid bucket indices are 0..numBuckets-1. */
  readonly numBuckets: number;
  /** A bucket lighter than this counts as empty. */
  readonly epsilon: number;
  /** The bucket a value falls in; values outside the covered range go to the first or last bucket. */
  findBucket(value: number): number;
  /** The lower edge of a bucket; a RangeError outside 0..numBuckets-1. */
  bucketStart(bucket: number): number;
}

/**
 * What options built by this package's factories were built from, so that histograms made
 * from separately created but identical options can be merged. (Upstream v1.8 only merges
 * histograms sharing the very same options object; that restriction protects nothing.)
 */
const bucketingDescriptions = new WeakMap<HistogramOptions, string>();

/** Records what `options` was built from, so equal options compare equal. */
export function describeBucketing<T extends HistogramOptions>(
  options: T,
  description: string,
): T {
  bucketingDescriptions.set(options, description);
  return options;
}

/** True when two options put every value in the same bucket. */
export function sameBucketing(
  a: HistogramOptions,
  b: HistogramOptions,
): boolean {
  if (a === b) return true;
  const description = bucketingDescriptions.get(a);
  return (
    description !== undefined && description === bucketingDescriptions.get(b)
  );
}

/** Throws unless `bucket` is a valid index for options with `numBuckets` buckets. */
export function requireBucketIndex(bucket: number, numBuckets: number): void {
  if (!Number.isInteger(bucket) || bucket < 0 || bucket >= numBuckets) {
    throw new RangeError(
      `bucket index must be an integer in [0, ${numBuckets - 1}], got ${bucket}`,
    );
  }
}

/** Throws unless `value` is a finite number > 0; `name` says which argument of `factory`. */
export function requirePositive(
  factory: string,
  name: string,
  value: number,
): void {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new RangeError(
      `${factory}: ${name} must be a finite number > 0, got ${value}`,
    );
  }
}

/** Throws unless a computed bucket count is usable. */
export function requireBucketCount(factory: string, numBuckets: number): void {
  if (!Number.isSafeInteger(numBuckets)) {
    throw new RangeError(
      `${factory}: these arguments need ${numBuckets} buckets, more than can be indexed`,
    );
  }
}
