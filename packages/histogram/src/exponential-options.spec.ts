import { exponentialHistogramOptions } from './exponential-options.js';

describe('exponentialHistogramOptions', () => {
  // Golden vector 1 (upstream unit test).
  const options = exponentialHistogramOptions(500, 40, 1.5, 0.001);

  it('has 6 buckets starting at 0, 40, 100, 190, 325, 527.5', () => {
    expect(options.numBuckets).toBe(6);
    expect([0, 1, 2, 3, 4, 5].map((b) => options.bucketStart(b))).toEqual([
      0, 40, 100, 190, 325, 527.5,
    ]);
    expect(options.epsilon).toBe(0.001);
  });

  it.each([
    [-1, 0],
    [39.99, 0],
    [40, 1],
    [100, 2],
    [900, 5],
  ])('puts %p in bucket %p', (value, bucket) => {
    expect(options.findBucket(value)).toBe(bucket);
  });

  it('puts NaN and infinities at the ends', () => {
    expect(options.findBucket(Number.NaN)).toBe(0);
    expect(options.findBucket(-Infinity)).toBe(0);
    expect(options.findBucket(Infinity)).toBe(5);
  });

  it('inverts bucketStart: values just above a start are in that bucket, just below in the previous', () => {
    const fine = exponentialHistogramOptions(1e6, 1, 1.01, 1e-9);
    for (let bucket = 1; bucket < fine.numBuckets; bucket++) {
      const start = fine.bucketStart(bucket);
      expect(fine.findBucket(start * (1 + 1e-12))).toBe(bucket);
      expect(fine.findBucket(start * (1 - 1e-12))).toBe(bucket - 1);
    }
  });

  it.each([
    [0, 40, 1.5, 0.001, 'maxValue must be a finite number > 0, got 0'],
    [
      500,
      -1,
      1.5,
      0.001,
      'firstBucketSize must be a finite number > 0, got -1',
    ],
    [500, 40, 1, 0.001, 'ratio must be a finite number > 1, got 1'],
    [500, 40, Number.NaN, 0.001, 'ratio must be a finite number > 1, got NaN'],
    [500, 40, 1.5, 0, 'epsilon must be a finite number > 0, got 0'],
    [
      Infinity,
      40,
      1.5,
      0.001,
      'maxValue must be a finite number > 0, got Infinity',
    ],
  ])('rejects (%p, %p, %p, %p): %s', (max, first, ratio, epsilon, message) => {
    expect(() =>
      exponentialHistogramOptions(max, first, ratio, epsilon),
    ).toThrow(new RangeError(`exponentialHistogramOptions: ${message}`));
  });

  it('rejects bucket indices outside the histogram', () => {
    expect(() => options.bucketStart(6)).toThrow(
      new RangeError('bucket index must be an integer in [0, 5], got 6'),
    );
    expect(() => options.bucketStart(-1)).toThrow(RangeError);
    expect(() => options.bucketStart(1.5)).toThrow(RangeError);
  });
});
