import { CheckpointError } from './checkpoint-error.js';
import { Histogram } from './histogram.js';
import { linearHistogramOptions } from './linear-options.js';

const TEN_UNITS = linearHistogramOptions(10, 1, 1e-15);

function histogramWith(
  ...samples: [value: number, weight: number][]
): Histogram {
  const histogram = new Histogram(TEN_UNITS);
  for (const [value, weight] of samples) histogram.addSample(value, weight);
  return histogram;
}

describe('Histogram checkpoints', () => {
  describe('save (golden vector 7)', () => {
    it('scales to 10000 for the heaviest bucket and keeps the exact total', () => {
      expect(
        histogramWith([1, 1], [2, 10000], [3, 50]).saveCheckpoint(),
      ).toEqual({
        bucketWeights: { '1': 1, '2': 10000, '3': 50 },
        totalWeight: 10051,
      });
    });

    it('drops buckets lighter than half a 10000th of the heaviest', () => {
      expect(histogramWith([1, 1], [2, 100000]).saveCheckpoint()).toEqual({
        bucketWeights: { '2': 10000 },
        totalWeight: 100001,
      });
    });

    it('stores a single bucket as 10000', () => {
      expect(histogramWith([1, 1]).saveCheckpoint()).toEqual({
        bucketWeights: { '1': 10000 },
        totalWeight: 1,
      });
    });

    it('stores an empty histogram as no buckets and total 0', () => {
      expect(histogramWith().saveCheckpoint()).toEqual({
        bucketWeights: {},
        totalWeight: 0,
      });
    });

    it('rounds half up', () => {
      expect(
        histogramWith([1, 0.5], [2, 10000]).saveCheckpoint().bucketWeights,
      ).toEqual({
        '1': 1,
        '2': 10000,
      });
      expect(
        histogramWith([1, 0.49], [2, 10000]).saveCheckpoint().bucketWeights,
      ).toEqual({
        '2': 10000,
      });
    });
  });

  describe('load (golden vector 8)', () => {
    it('rescales stored weights to the total', () => {
      const histogram = new Histogram(TEN_UNITS);
      histogram.loadCheckpoint({
        totalWeight: 6,
        bucketWeights: { '0': 1, '1': 2 },
      });
      expect(histogram.totalWeight).toBe(6);
      expect(histogram.bucketWeight(0)).toBe(2);
      expect(histogram.bucketWeight(1)).toBe(4);
      expect([histogram.minBucket, histogram.maxBucket]).toEqual([0, 1]);
    });

    it('accepts what upstream omits when empty', () => {
      const histogram = new Histogram(TEN_UNITS);
      histogram.loadCheckpoint({ referenceTimestamp: null });
      histogram.loadCheckpoint({});
      expect(histogram.isEmpty()).toBe(true);
      expect(histogram.totalWeight).toBe(0);
    });

    it('loads nothing, not even the total, when all stored weights are 0', () => {
      const histogram = new Histogram(TEN_UNITS);
      histogram.loadCheckpoint({ totalWeight: 5, bucketWeights: { '3': 0 } });
      expect(histogram.totalWeight).toBe(0);
    });

    it('drops a min bucket that rounding left below epsilon (upstream #7726)', () => {
      const options = linearHistogramOptions(10, 1, 0.001);
      const histogram = new Histogram(options);
      histogram.loadCheckpoint({
        totalWeight: 9.0001,
        bucketWeights: { '1': 1, '2': 10000 },
      });
      expect(histogram.bucketWeight(1)).toBeLessThan(0.001);
      expect(histogram.minBucket).toBe(2);
      expect(histogram.isEmpty()).toBe(false);
    });
  });

  describe('corrupt checkpoints are refused with the field at fault', () => {
    it.each<[string, unknown, string]>([
      ['null', null, 'a histogram checkpoint must be a JSON object, got null'],
      [
        'an array',
        [],
        'a histogram checkpoint must be a JSON object, got an array',
      ],
      [
        'a string',
        'x',
        'a histogram checkpoint must be a JSON object, got "x"',
      ],
      [
        'a negative total',
        { totalWeight: -1, bucketWeights: {} },
        'totalWeight: must be a finite number >= 0, got -1',
      ],
      [
        'a NaN total',
        { totalWeight: Number.NaN, bucketWeights: {} },
        'totalWeight: must be a finite number >= 0, got NaN',
      ],
      [
        'an infinite total',
        { totalWeight: Infinity, bucketWeights: {} },
        'totalWeight: must be a finite number >= 0, got Infinity',
      ],
      [
        'a textual total',
        { totalWeight: '6', bucketWeights: {} },
        'totalWeight: must be a finite number >= 0, got "6"',
      ],
      [
        'weights as an array',
        { totalWeight: 1, bucketWeights: [1] },
        'bucketWeights: must be an object of bucket index to weight, got an array',
      ],
      [
        'a bucket index out of range',
        { totalWeight: 1, bucketWeights: { '11': 1 } },
        'bucketWeights["11"]: bucket index 11 is out of range [0, 10]',
      ],
      [
        'a negative bucket index',
        { totalWeight: 1, bucketWeights: { '-1': 1 } },
        'bucketWeights["-1"]: bucket index must be a non-negative decimal integer, got "-1"',
      ],
      [
        'a non-numeric bucket index',
        { totalWeight: 1, bucketWeights: { abc: 1 } },
        'bucketWeights["abc"]: bucket index must be a non-negative decimal integer, got "abc"',
      ],
      [
        'a bucket index with a leading zero',
        { totalWeight: 1, bucketWeights: { '01': 1 } },
        'bucketWeights["01"]: bucket index must be a non-negative decimal integer, got "01"',
      ],
      [
        'a fractional weight',
        { totalWeight: 1, bucketWeights: { '1': 1.5 } },
        'bucketWeights["1"]: weight must be an integer in [0, 4294967295], got 1.5',
      ],
      [
        'a negative weight',
        { totalWeight: 1, bucketWeights: { '1': -3 } },
        'bucketWeights["1"]: weight must be an integer in [0, 4294967295], got -3',
      ],
      [
        'a weight beyond uint32',
        { totalWeight: 1, bucketWeights: { '1': 2 ** 32 } },
        'bucketWeights["1"]: weight must be an integer in [0, 4294967295], got 4294967296',
      ],
      [
        'a textual weight',
        { totalWeight: 1, bucketWeights: { '1': '7' } },
        'bucketWeights["1"]: weight must be an integer in [0, 4294967295], got "7"',
      ],
      [
        'an unparseable reference time',
        {
          totalWeight: 1,
          bucketWeights: { '1': 7 },
          referenceTimestamp: 'soon',
        },
        'referenceTimestamp: expected an RFC 3339 timestamp such as "2024-01-02T00:00:00Z", got "soon"',
      ],
    ])('%s', (_, checkpoint, message) => {
      const histogram = histogramWith([4, 1]);
      const error = captureError(() => histogram.loadCheckpoint(checkpoint));
      expect(error).toBeInstanceOf(CheckpointError);
      expect(error.message).toBe(message);
      // Nothing was half-loaded.
      expect(histogram.totalWeight).toBe(1);
      expect(histogram.percentile(1)).toBe(5);
    });
  });

  it('reports nested fields with CheckpointError.within', () => {
    const error = new CheckpointError(
      'totalWeight',
      'must be a finite number >= 0, got -1',
    );
    expect(error.within('status.cpuHistogram').message).toBe(
      'status.cpuHistogram.totalWeight: must be a finite number >= 0, got -1',
    );
    expect(new CheckpointError('', 'broken').within('status').message).toBe(
      'status: broken',
    );
  });
});

function captureError(action: () => void): Error {
  try {
    action();
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error('expected an error');
}
