import { exponentialHistogramOptions } from './exponential-options.js';
import { Histogram } from './histogram.js';
import { linearHistogramOptions } from './linear-options.js';

// Upstream's test options: ten 1-wide buckets plus an open-ended one, epsilon 1e-15.
const TEN_UNITS = linearHistogramOptions(10, 1, 1e-15);
const ONE_UNIT_BY_TENTHS = linearHistogramOptions(1, 0.1, 1e-15);

describe('Histogram', () => {
  describe('percentile (golden vector 4)', () => {
    const histogram = new Histogram(TEN_UNITS);
    for (let i = 1; i <= 4; i++) histogram.addSample(i, i);

    it.each([
      [0, 2],
      [0.1, 2],
      [0.2, 3],
      [0.3, 3],
      [0.4, 4],
      [0.5, 4],
      [0.6, 4],
      [0.7, 5],
      [0.8, 5],
      [0.9, 5],
      [1.0, 5],
    ])('p%p is the end of its bucket: %p', (p, expected) => {
      expect(histogram.percentile(p)).toBe(expected);
    });

    it('tracks total, min and max buckets', () => {
      expect(histogram.totalWeight).toBe(10);
      expect(histogram.minBucket).toBe(1);
      expect(histogram.maxBucket).toBe(4);
      expect(histogram.bucketWeight(3)).toBe(3);
      expect(histogram.bucketWeight(9)).toBe(0);
    });
  });

  it('answers percentiles outside [0, 1] with the min and max buckets (golden vector 5)', () => {
    const histogram = new Histogram(ONE_UNIT_BY_TENTHS);
    histogram.addSample(0.1, 0.1);
    histogram.addSample(0.2, 0.2);
    expect(histogram.percentile(-0.1)).toBe(2 * 0.1);
    expect(histogram.percentile(1.1)).toBe(3 * 0.1);
    histogram.addSample(0.0, 0.1);
    histogram.addSample(1.0, 0.2);
    expect(histogram.percentile(-0.1)).toBe(0.1);
    // The last bucket is open-ended: its start is the answer.
    expect(histogram.percentile(1.1)).toBe(1.0);
  });

  describe('emptiness (golden vector 6)', () => {
    it.each([-0.5, 0, 0.5, 1, 1.5])(
      'an empty histogram answers 0 for p%p',
      (p) => {
        expect(new Histogram(TEN_UNITS).percentile(p)).toBe(0);
      },
    );

    it('counts a bucket only from epsilon up', () => {
      const histogram = new Histogram(ONE_UNIT_BY_TENTHS);
      expect(histogram.isEmpty()).toBe(true);
      histogram.addSample(0.1, 2.5e-15);
      expect(histogram.isEmpty()).toBe(false);
      histogram.subtractSample(0.1, 1e-15);
      expect(histogram.isEmpty()).toBe(false);
      histogram.subtractSample(0.1, 1e-15);
      expect(histogram.isEmpty()).toBe(true);
      expect(histogram.bucketWeight(1)).toBe(0);
    });

    it('keeps a sub-epsilon sample out of the min/max buckets but in the total', () => {
      const histogram = new Histogram(TEN_UNITS);
      histogram.addSample(5, 1);
      histogram.addSample(1, 1e-16);
      expect(histogram.minBucket).toBe(5);
      expect(histogram.totalWeight).toBe(1 + 1e-16);
      expect(histogram.bucketWeight(1)).toBe(1e-16);
    });
  });

  it('never subtracts below zero', () => {
    const histogram = new Histogram(TEN_UNITS);
    histogram.addSample(2, 1);
    histogram.subtractSample(2, 5);
    histogram.subtractSample(7, 5);
    expect(histogram.totalWeight).toBe(0);
    expect(histogram.bucketWeight(2)).toBe(0);
    expect(histogram.isEmpty()).toBe(true);
    expect(histogram.minBucket).toBe(10);
    expect(histogram.maxBucket).toBe(0);
  });

  it('merges weights, totals and bucket ranges', () => {
    const a = new Histogram(TEN_UNITS);
    const b = new Histogram(TEN_UNITS);
    a.addSample(1, 1);
    a.addSample(2, 1);
    b.addSample(2, 1);
    b.addSample(8, 3);
    a.merge(b);
    expect(a.totalWeight).toBe(6);
    expect([a.bucketWeight(1), a.bucketWeight(2), a.bucketWeight(8)]).toEqual([
      1, 2, 3,
    ]);
    expect([a.minBucket, a.maxBucket]).toEqual([1, 8]);
    expect(b.totalWeight).toBe(4);
  });

  it('merges histograms built from separately created but identical options', () => {
    const a = new Histogram(linearHistogramOptions(10, 1, 1e-15));
    const b = new Histogram(linearHistogramOptions(10, 1, 1e-15));
    b.addSample(3, 1);
    a.merge(b);
    expect(a.percentile(1)).toBe(4);
  });

  it('refuses to merge histograms with different bucketing', () => {
    const a = new Histogram(TEN_UNITS);
    expect(() =>
      a.merge(new Histogram(linearHistogramOptions(10, 2, 1e-15))),
    ).toThrow(
      new RangeError(
        'cannot merge histograms with different bucketing options',
      ),
    );
  });

  it('scales weights and drops buckets that fall below epsilon', () => {
    const histogram = new Histogram(linearHistogramOptions(10, 1, 0.5));
    histogram.addSample(1, 1);
    histogram.addSample(3, 4);
    histogram.scale(0.25);
    expect(histogram.totalWeight).toBe(1.25);
    expect(histogram.bucketWeight(3)).toBe(1);
    expect(histogram.minBucket).toBe(3);
    expect(histogram.percentile(0)).toBe(4);
  });

  it('clones independently', () => {
    const original = new Histogram(TEN_UNITS);
    original.addSample(4, 2);
    const copy = original.clone();
    copy.addSample(6, 2);
    expect(original.percentile(1)).toBe(5);
    expect(copy.percentile(1)).toBe(7);
  });

  it('stores only the occupied window, even across a wide range of buckets', () => {
    // A linear histogram with 10^12 buckets would need 8 TB as a dense array.
    const huge = new Histogram(linearHistogramOptions(1e12, 1, 1e-9));
    huge.addSample(5e11, 1);
    huge.addSample(5e11 + 3, 1);
    expect(huge.percentile(0.5)).toBe(5e11 + 1);
    huge.subtractSample(5e11, 1);
    huge.subtractSample(5e11 + 3, 1);
    expect(huge.isEmpty()).toBe(true);
    expect(huge.minBucket).toBe(1e12);
  });

  describe('bad input', () => {
    const histogram = new Histogram(
      exponentialHistogramOptions(500, 40, 1.5, 0.001),
    );

    it.each([Number.NaN, Infinity, -Infinity])(
      'refuses the value %p',
      (value) => {
        expect(() => histogram.addSample(value, 1)).toThrow(
          new RangeError(`sample value must be a finite number, got ${value}`),
        );
        expect(() => histogram.subtractSample(value, 1)).toThrow(RangeError);
      },
    );

    it.each([-1, Number.NaN, Infinity])('refuses the weight %p', (weight) => {
      expect(() => histogram.addSample(1, weight)).toThrow(
        new RangeError(
          `sample weight must be a finite number >= 0, got ${weight}`,
        ),
      );
      expect(() => histogram.subtractSample(1, weight)).toThrow(RangeError);
    });

    it.each([-1, Number.NaN, Infinity])(
      'refuses the scale factor %p',
      (factor) => {
        expect(() => histogram.scale(factor)).toThrow(
          new RangeError(
            `scale factor must be a finite number >= 0, got ${factor}`,
          ),
        );
      },
    );

    it('refuses a NaN percentile and out-of-range bucket indices', () => {
      expect(() => histogram.percentile(Number.NaN)).toThrow(RangeError);
      expect(() => histogram.bucketWeight(6)).toThrow(
        new RangeError('bucket index must be an integer in [0, 5], got 6'),
      );
    });

    it('is unchanged after refusing', () => {
      expect(histogram.totalWeight).toBe(0);
      expect(histogram.isEmpty()).toBe(true);
    });
  });
});
