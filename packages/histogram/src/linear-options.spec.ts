import { linearHistogramOptions } from './linear-options.js';

describe('linearHistogramOptions', () => {
  // Golden vector 2 (upstream unit test).
  const options = linearHistogramOptions(5, 0.3, 1e-15);

  it('has 18 buckets, the last one starting at 5.1', () => {
    expect(options.numBuckets).toBe(18);
    expect(options.bucketStart(17)).toBeCloseTo(5.1, 15);
    expect(options.bucketStart(0)).toBe(0);
  });

  it.each([
    [-1, 0],
    [0, 0],
    [1.3, 4],
    [100, 17],
    [Number.NaN, 0],
    [1e300, 17],
  ])('puts %p in bucket %p', (value, bucket) => {
    expect(options.findBucket(value)).toBe(bucket);
  });

  it.each([
    [0, 1, 1, 'maxValue must be a finite number > 0, got 0'],
    [1, Number.NaN, 1, 'bucketSize must be a finite number > 0, got NaN'],
    [1, 1, -1, 'epsilon must be a finite number > 0, got -1'],
    [
      1e300,
      1e-300,
      1,
      'these arguments need Infinity buckets, more than can be indexed',
    ],
  ])('rejects (%p, %p, %p): %s', (max, size, epsilon, message) => {
    expect(() => linearHistogramOptions(max, size, epsilon)).toThrow(
      new RangeError(`linearHistogramOptions: ${message}`),
    );
  });
});
