import { CheckpointError } from './checkpoint-error.js';
import { DecayingHistogram } from './decaying-histogram.js';
import { GO_ZERO_TIME_MS } from './go-time.js';
import { linearHistogramOptions } from './linear-options.js';
import { CPU_HISTOGRAM_OPTIONS } from './vpa-histogram-options.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const TEN_UNITS = linearHistogramOptions(10, 1, 1e-15);
/** Upstream's arbitrary test time, time.Unix(1234567890, 0). */
const START = 1234567890_000;

describe('DecayingHistogram', () => {
  it('starts empty with Go’s zero time as reference', () => {
    const histogram = new DecayingHistogram(TEN_UNITS, HOUR);
    expect(histogram.referenceTimestampMs).toBe(GO_ZERO_TIME_MS);
    for (const p of [-0.5, 0, 0.5, 1, 1.5])
      expect(histogram.percentile(p)).toBe(0);
    expect(histogram.saveCheckpoint()).toEqual({
      referenceTimestamp: null,
      bucketWeights: {},
      totalWeight: 0,
    });
  });

  describe('percentiles with decay (golden vector 9)', () => {
    const histogram = new DecayingHistogram(TEN_UNITS, HOUR);
    for (let i = 1; i <= 4; i++)
      histogram.addSample(i, i, START + (i - 1) * HOUR);

    it.each([
      [0, 2],
      [0.02, 2],
      [0.03, 3],
      [0.1, 3],
      [0.11, 4],
      [0.34, 4],
      [0.35, 5],
      [1, 5],
    ])('p%p = %p', (p, expected) => {
      expect(histogram.percentile(p)).toBe(expected);
    });

    it('matches the plain histogram when all samples share a time', () => {
      const sameTime = new DecayingHistogram(TEN_UNITS, HOUR);
      for (let i = 1; i <= 4; i++) sameTime.addSample(i, i, START);
      expect([0.1, 0.2, 0.4, 0.7].map((p) => sameTime.percentile(p))).toEqual([
        2, 3, 4, 5,
      ]);
    });
  });

  it('forgets a heavy sample after 20 half-lives (golden vector 10)', () => {
    const histogram = new DecayingHistogram(TEN_UNITS, HOUR);
    histogram.addSample(2, 1000, START);
    histogram.addSample(1, 1, START + 20 * HOUR);
    expect(histogram.percentile(0.999)).toBe(2);
    expect(histogram.percentile(1)).toBe(3);
  });

  it('renormalises past 2^100 and keeps working (golden vector 10)', () => {
    const histogram = new DecayingHistogram(TEN_UNITS, HOUR);
    histogram.addSample(2, 1, START);
    const firstReference = histogram.referenceTimestampMs;
    histogram.addSample(1, 1, START + 101 * HOUR);
    expect(histogram.referenceTimestampMs).toBeGreaterThan(firstReference);
    expect(histogram.percentile(1)).toBe(2);
  });

  describe('reference rounding and checkpoint (golden vector 11)', () => {
    // Expected weights are upstream's (Go's math.Exp2): 0.1 * 2^-0.5 is 0.07071067811865475.
    // The reference document quotes 0.07071067811865477 and a total ending in ...428,
    // computed with a correctly rounded power instead.
    const histogram = new DecayingHistogram(CPU_HISTOGRAM_OPTIONS, DAY);
    histogram.addSample(1.0, 0.1, Date.parse('2024-01-01T12:00:00Z'));

    it('rounds the first reference half-way up to the next multiple of the half-life', () => {
      expect(histogram.referenceTimestampMs).toBe(
        Date.parse('2024-01-02T00:00:00Z'),
      );
      expect(histogram.bucketWeight(36)).toBe(0.07071067811865475);
    });

    it('weighs a sample half a half-life later by 2^0.5', () => {
      histogram.addSample(2.0, 0.1, Date.parse('2024-01-02T12:00:00Z'));
      expect(histogram.bucketWeight(49)).toBe(0.1414213562373095);
      expect(histogram.totalWeight).toBe(0.21213203435596426);
      expect(histogram.percentile(0.3)).toBe(1.0162813885540904);
      expect(histogram.percentile(0.5)).toBe(2.093479957150735);
    });

    it('saves and reloads the two weights exactly', () => {
      const checkpoint = histogram.saveCheckpoint();
      expect(checkpoint).toEqual({
        referenceTimestamp: '2024-01-02T00:00:00Z',
        bucketWeights: { '36': 5000, '49': 10000 },
        totalWeight: 0.21213203435596426,
      });
      const reloaded = new DecayingHistogram(CPU_HISTOGRAM_OPTIONS, DAY);
      reloaded.loadCheckpoint(JSON.parse(JSON.stringify(checkpoint)));
      expect(reloaded.referenceTimestampMs).toBe(
        Date.parse('2024-01-02T00:00:00Z'),
      );
      expect(reloaded.bucketWeight(36)).toBe(0.07071067811865475);
      expect(reloaded.bucketWeight(49)).toBe(0.1414213562373095);
      expect(reloaded.totalWeight).toBe(0.21213203435596426);
    });
  });

  it('counts reference multiples from Go’s zero time for half-lives that do not divide a day', () => {
    const histogram = new DecayingHistogram(TEN_UNITS, 7 * HOUR);
    histogram.addSample(1, 1, 0);
    // The Unix epoch is 2 h past a multiple of 7 h counted from 0001-01-01.
    expect(histogram.referenceTimestampMs).toBe(-2 * HOUR);
  });

  it('weighs a sample one half-life newer twice as much', () => {
    const histogram = new DecayingHistogram(TEN_UNITS, DAY);
    const t = Date.parse('2024-03-01T00:00:00Z');
    histogram.addSample(1, 1, t);
    histogram.addSample(2, 1, t + DAY);
    histogram.addSample(3, 1, t - DAY);
    expect(histogram.bucketWeight(2) / histogram.bucketWeight(1)).toBe(2);
    expect(histogram.bucketWeight(1) / histogram.bucketWeight(3)).toBe(2);
  });

  it('subtracts with the same decay it adds with', () => {
    const histogram = new DecayingHistogram(TEN_UNITS, HOUR);
    histogram.addSample(3, 1, START);
    histogram.addSample(5, 1, START + 30 * 60_000);
    histogram.subtractSample(5, 1, START + 30 * 60_000);
    expect(histogram.bucketWeight(5)).toBe(0);
    expect(histogram.percentile(1)).toBe(4);
  });

  describe('merge', () => {
    it('moves the older histogram to the newer reference, even when that is the argument', () => {
      const older = new DecayingHistogram(TEN_UNITS, HOUR);
      const newer = new DecayingHistogram(TEN_UNITS, HOUR);
      // Heavy enough to stay above epsilon after being scaled by 2^-150.
      older.addSample(1, 1e40, START);
      newer.addSample(2, 1, START + 150 * HOUR);
      const percentilesBefore = [0, 0.5, 1].map((p) => older.percentile(p));

      newer.merge(older);

      // Upstream quirk kept: `older` itself was rescaled to the newer reference.
      expect(older.referenceTimestampMs).toBe(newer.referenceTimestampMs);
      expect([0, 0.5, 1].map((p) => older.percentile(p))).toEqual(
        percentilesBefore,
      );
      expect(older.totalWeight).toBeLessThan(1e-4);
      expect([0, 0.5, 1].map((p) => newer.percentile(p))).toEqual([2, 3, 3]);
    });

    it('is commutative in its result', () => {
      const build = () => {
        const a = new DecayingHistogram(TEN_UNITS, HOUR);
        const b = new DecayingHistogram(TEN_UNITS, HOUR);
        a.addSample(1, 3, START);
        b.addSample(6, 1, START + 150 * HOUR);
        return [a, b] as const;
      };
      const [a1, b1] = build();
      a1.merge(b1);
      const [a2, b2] = build();
      b2.merge(a2);
      expect(a1.saveCheckpoint()).toEqual(b2.saveCheckpoint());
    });

    it('refuses different half-lives', () => {
      const a = new DecayingHistogram(TEN_UNITS, HOUR);
      expect(() => a.merge(new DecayingHistogram(TEN_UNITS, DAY))).toThrow(
        new RangeError(
          'cannot merge decaying histograms with different half-lives (3600000 ms and 86400000 ms)',
        ),
      );
    });
  });

  it('clones weights and reference independently', () => {
    const original = new DecayingHistogram(TEN_UNITS, HOUR);
    original.addSample(2, 1, START);
    const copy = original.clone();
    copy.addSample(8, 1, START + 300 * HOUR);
    expect(original.percentile(1)).toBe(3);
    expect(copy.percentile(1)).toBe(9);
    expect(copy.referenceTimestampMs).not.toBe(original.referenceTimestampMs);
  });

  describe('checkpoint load', () => {
    it('takes over the reference time (upstream test)', () => {
      const histogram = new DecayingHistogram(TEN_UNITS, HOUR);
      histogram.loadCheckpoint({
        totalWeight: 6,
        bucketWeights: { '0': 1 },
        referenceTimestamp: '2018-01-02T03:04:05Z',
      });
      expect(histogram.isEmpty()).toBe(false);
      expect(histogram.referenceTimestampMs).toBe(
        Date.parse('2018-01-02T03:04:05Z'),
      );
    });

    it('continues decaying from the loaded reference', () => {
      const saved = new DecayingHistogram(TEN_UNITS, HOUR);
      saved.addSample(1, 1, START);
      const restored = new DecayingHistogram(TEN_UNITS, HOUR);
      restored.loadCheckpoint(saved.saveCheckpoint());
      saved.addSample(4, 1, START + HOUR);
      restored.addSample(4, 1, START + HOUR);
      expect(restored.bucketWeight(4)).toBe(saved.bucketWeight(4));
    });

    it('refuses a corrupt checkpoint without changing anything', () => {
      const histogram = new DecayingHistogram(TEN_UNITS, HOUR);
      histogram.addSample(1, 1, START);
      const reference = histogram.referenceTimestampMs;
      expect(() =>
        histogram.loadCheckpoint({
          totalWeight: 1,
          bucketWeights: { '3': 1 },
          referenceTimestamp: 17,
        }),
      ).toThrow(CheckpointError);
      expect(histogram.referenceTimestampMs).toBe(reference);
      expect(histogram.totalWeight).toBeLessThan(2);
      expect(histogram.bucketWeight(3)).toBe(0);
    });
  });

  describe('bad input', () => {
    it.each([0, -1, Number.NaN, Infinity])(
      'refuses the half-life %p',
      (halfLife) => {
        expect(() => new DecayingHistogram(TEN_UNITS, halfLife)).toThrow(
          new RangeError(
            `halfLifeMs must be a finite number > 0, got ${halfLife}`,
          ),
        );
      },
    );

    it('refuses non-finite times, values and bad weights before touching anything', () => {
      const histogram = new DecayingHistogram(TEN_UNITS, HOUR);
      expect(() => histogram.addSample(1, 1, Number.NaN)).toThrow(
        new RangeError(
          'sample time must be finite milliseconds since the Unix epoch, got NaN',
        ),
      );
      expect(() => histogram.addSample(Number.NaN, 1, START)).toThrow(
        RangeError,
      );
      expect(() => histogram.addSample(1, -1, START)).toThrow(RangeError);
      expect(() => histogram.subtractSample(1, 1, Infinity)).toThrow(
        RangeError,
      );
      expect(histogram.referenceTimestampMs).toBe(GO_ZERO_TIME_MS);
    });
  });
});
