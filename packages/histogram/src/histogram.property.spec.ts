import fc from 'fast-check';
import { DecayingHistogram } from './decaying-histogram.js';
import type { HistogramCheckpoint } from './checkpoint.js';
import { exponentialHistogramOptions } from './exponential-options.js';
import { Histogram } from './histogram.js';
import type { HistogramOptions } from './histogram-options.js';
import { linearHistogramOptions } from './linear-options.js';
import { CPU_HISTOGRAM_OPTIONS } from './vpa-histogram-options.js';

/**
 * Upstream's dense histogram, written as plainly as the reference describes it (§1.2): one
 * float64 slot per bucket. The compact window storage must agree with it bit for bit.
 */
class DenseHistogram {
  readonly options: HistogramOptions;
  readonly weights: number[];
  total = 0;
  min: number;
  max = 0;

  constructor(options: HistogramOptions) {
    this.options = options;
    this.weights = new Array<number>(options.numBuckets).fill(0);
    this.min = options.numBuckets - 1;
  }

  add(value: number, weight: number): void {
    const bucket = this.options.findBucket(value);
    this.weights[bucket] = this.weight(bucket) + weight;
    this.total += weight;
    if (this.weight(bucket) >= this.options.epsilon) {
      this.min = Math.min(this.min, bucket);
      this.max = Math.max(this.max, bucket);
    }
  }

  subtract(value: number, weight: number): void {
    const bucket = this.options.findBucket(value);
    this.total = this.safeSubtract(this.total, weight);
    this.weights[bucket] = this.safeSubtract(this.weight(bucket), weight);
    this.updateMinAndMax();
  }

  merge(other: DenseHistogram): void {
    for (let bucket = other.min; bucket <= other.max; bucket++) {
      this.weights[bucket] = this.weight(bucket) + other.weight(bucket);
    }
    this.total += other.total;
    this.min = Math.min(this.min, other.min);
    this.max = Math.max(this.max, other.max);
  }

  scale(factor: number): void {
    for (let bucket = this.min; bucket <= this.max; bucket++) {
      this.weights[bucket] = this.weight(bucket) * factor;
    }
    this.total *= factor;
    this.updateMinAndMax();
  }

  loadCheckpoint(checkpoint: HistogramCheckpoint): void {
    const stored = Object.entries(checkpoint.bucketWeights);
    const sum = stored.reduce((total, [, w]) => total + w, 0);
    if (sum === 0) return;
    for (const [key, w] of stored) {
      const bucket = Number(key);
      this.weights[bucket] =
        this.weight(bucket) + w * (checkpoint.totalWeight / sum);
      this.min = Math.min(this.min, bucket);
      this.max = Math.max(this.max, bucket);
    }
    this.total += checkpoint.totalWeight;
    this.updateMinAndMax();
  }

  percentile(p: number): number {
    if (this.weight(this.min) < this.options.epsilon) return 0;
    let partial = 0;
    let bucket = this.min;
    for (; bucket < this.max; bucket++) {
      partial += this.weight(bucket);
      if (partial >= p * this.total) break;
    }
    const last = this.options.numBuckets - 1;
    return this.options.bucketStart(bucket < last ? bucket + 1 : bucket);
  }

  private weight(bucket: number): number {
    return this.weights[bucket] ?? Number.NaN;
  }

  private safeSubtract(value: number, amount: number): number {
    const difference = value - amount;
    return difference < this.options.epsilon ? 0 : difference;
  }

  private updateMinAndMax(): void {
    const last = this.options.numBuckets - 1;
    while (this.weight(this.min) < this.options.epsilon && this.min < last)
      this.min++;
    while (this.weight(this.max) < this.options.epsilon && this.max > 0)
      this.max--;
  }
}

/** A coarse epsilon so that operations regularly cross it, and the VPA CPU options. */
const OPTIONS: HistogramOptions[] = [
  linearHistogramOptions(20, 1, 0.05),
  exponentialHistogramOptions(100, 1, 1.3, 0.01),
  CPU_HISTOGRAM_OPTIONS,
];
const PERCENTILES = [-0.1, 0, 0.05, 0.25, 0.5, 0.9, 0.95, 1, 1.1];

const value = fc.oneof(
  fc.double({ min: -5, max: 150, noNaN: true }),
  fc.integer({ min: 0, max: 30 }),
);
const weight = fc.oneof(
  fc.constantFrom(0, 1e-3, 0.01, 0.05, 0.1, 1, 4),
  fc.double({ min: 0, max: 10, noNaN: true }),
);
const samples = fc.array(fc.tuple(value, weight), { maxLength: 12 });

type Operation =
  | { kind: 'add' | 'subtract'; value: number; weight: number }
  | { kind: 'scale'; factor: number }
  | { kind: 'merge'; samples: [number, number][] };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('add' as const), value, weight }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('subtract' as const),
      value,
      weight,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('scale' as const),
      factor: fc.constantFrom(0, 2 ** -20, 0.01, 0.5, 1, 3),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('merge' as const), samples }),
  },
);

function histogramOf(
  options: HistogramOptions,
  entries: [number, number][],
): Histogram {
  const histogram = new Histogram(options);
  for (const [v, w] of entries) histogram.addSample(v, w);
  return histogram;
}

function denseOf(
  options: HistogramOptions,
  entries: [number, number][],
): DenseHistogram {
  const dense = new DenseHistogram(options);
  for (const [v, w] of entries) dense.add(v, w);
  return dense;
}

function apply(compact: Histogram, dense: DenseHistogram, op: Operation): void {
  switch (op.kind) {
    case 'add':
      compact.addSample(op.value, op.weight);
      dense.add(op.value, op.weight);
      break;
    case 'subtract':
      compact.subtractSample(op.value, op.weight);
      dense.subtract(op.value, op.weight);
      break;
    case 'scale':
      compact.scale(op.factor);
      dense.scale(op.factor);
      break;
    case 'merge':
      compact.merge(histogramOf(compact.options, op.samples));
      dense.merge(denseOf(dense.options, op.samples));
      break;
  }
}

function expectSameState(compact: Histogram, dense: DenseHistogram): void {
  const weights = dense.weights.map((_, bucket) =>
    compact.bucketWeight(bucket),
  );
  expect(weights).toEqual(dense.weights);
  expect(compact.totalWeight).toBe(dense.total);
  expect([compact.minBucket, compact.maxBucket]).toEqual([
    dense.min,
    dense.max,
  ]);
  expect(PERCENTILES.map((p) => compact.percentile(p))).toEqual(
    PERCENTILES.map((p) => dense.percentile(p)),
  );
}

/** i such that the percentile answer is bucketStart(i): b + 1 for bucket b, capped at the last. */
function edgeIndex(options: HistogramOptions, answer: number): number {
  for (let index = 0; index < options.numBuckets; index++) {
    if (options.bucketStart(index) === answer) return index;
  }
  throw new Error(`${answer} is not a bucket edge`);
}

describe('Histogram properties', () => {
  it('stores exactly what a dense 1-slot-per-bucket histogram stores', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OPTIONS),
        fc.array(operation, { maxLength: 30 }),
        (options, operations) => {
          const compact = new Histogram(options);
          const dense = new DenseHistogram(options);
          for (const op of operations) {
            apply(compact, dense, op);
            expectSameState(compact, dense);
          }
          const checkpoint = compact.saveCheckpoint();
          const reloaded = new Histogram(options);
          const reloadedDense = new DenseHistogram(options);
          reloaded.loadCheckpoint(checkpoint);
          reloadedDense.loadCheckpoint(checkpoint);
          expectSameState(reloaded, reloadedDense);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('answers percentiles right with several histograms changed and queried in turn', () => {
    // Running sums are kept for the histogram last queried: every change, and every
    // query of another histogram in between, must be seen.
    fc.assert(
      fc.property(
        fc.constantFrom(...OPTIONS),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), operation), {
          maxLength: 30,
        }),
        (options, steps) => {
          const compacts = [0, 1, 2].map(() => new Histogram(options));
          const denses = [0, 1, 2].map(() => new DenseHistogram(options));
          for (const [index, op] of steps) {
            const [compact, dense] = [compacts[index], denses[index]];
            if (compact === undefined || dense === undefined) continue;
            expect(compact.percentile(0.5)).toBe(dense.percentile(0.5));
            apply(compact, dense, op);
            for (const p of PERCENTILES)
              expect(compact.percentile(p)).toBe(dense.percentile(p));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('gives percentiles that never decrease with p', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OPTIONS),
        samples,
        fc.double({ min: -0.5, max: 1.5, noNaN: true }),
        fc.double({ min: -0.5, max: 1.5, noNaN: true }),
        (options, entries, p1, p2) => {
          const histogram = histogramOf(options, entries);
          const [low, high] = p1 <= p2 ? [p1, p2] : [p2, p1];
          expect(histogram.percentile(low)).toBeLessThanOrEqual(
            histogram.percentile(high),
          );
        },
      ),
    );
  });

  // Merging copies only the other histogram's [min, max] buckets, so sub-epsilon residue
  // outside them makes upstream's merge order-dependent: the algebraic properties hold for
  // samples of at least epsilon (0.05 is the largest epsilon in OPTIONS).
  const heavySamples = fc.array(
    fc.tuple(value, fc.double({ min: 0.05, max: 10, noNaN: true })),
    { maxLength: 12 },
  );
  // Multiples of 1/8 add up exactly in any order, so with them associativity is exact too.
  const dyadicSamples = fc.array(
    fc.tuple(
      value,
      fc.integer({ min: 1, max: 80 }).map((eighths) => eighths / 8),
    ),
    { maxLength: 10 },
  );

  function mergedLeftToRight(
    options: HistogramOptions,
    parts: [number, number][][],
  ): Histogram {
    const result = new Histogram(options);
    for (const part of parts) result.merge(histogramOf(options, part));
    return result;
  }

  function mergedRightToLeft(
    options: HistogramOptions,
    [a, b, c]: [number, number][][],
  ): Histogram {
    const bc = histogramOf(options, b ?? []);
    bc.merge(histogramOf(options, c ?? []));
    const result = histogramOf(options, a ?? []);
    result.merge(bc);
    return result;
  }

  it('merges commutatively', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OPTIONS),
        heavySamples,
        heavySamples,
        (options, a, b) => {
          const ab = mergedLeftToRight(options, [a, b]);
          const ba = mergedLeftToRight(options, [b, a]);
          expect(ab.totalWeight).toBe(ba.totalWeight);
          expect(ab.saveCheckpoint()).toEqual(ba.saveCheckpoint());
          expect(PERCENTILES.map((p) => ab.percentile(p))).toEqual(
            PERCENTILES.map((p) => ba.percentile(p)),
          );
        },
      ),
    );
  });

  it('merges associatively, exactly when the sums are exact', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OPTIONS),
        fc.tuple(dyadicSamples, dyadicSamples, dyadicSamples),
        (options, parts) => {
          const left = mergedLeftToRight(options, parts);
          const right = mergedRightToLeft(options, parts);
          expect(left.totalWeight).toBe(right.totalWeight);
          expect(left.saveCheckpoint()).toEqual(right.saveCheckpoint());
          expect([left.minBucket, left.maxBucket]).toEqual([
            right.minBucket,
            right.maxBucket,
          ]);
        },
      ),
    );
  });

  it('merges associatively up to rounding for any weights', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OPTIONS),
        fc.tuple(heavySamples, heavySamples, heavySamples),
        (options, parts) => {
          const left = mergedLeftToRight(options, parts);
          const right = mergedRightToLeft(options, parts);
          // Percentiles may legitimately differ when p * total lands on a cumulative sum
          // that rounds differently, so only the totals are compared here.
          expect(left.totalWeight).toBeCloseTo(right.totalWeight, 10);
        },
      ),
    );
  });

  it('never lowers the max bucket when a sample is added', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OPTIONS),
        samples,
        value,
        weight,
        (options, entries, v, w) => {
          const histogram = histogramOf(options, entries);
          const before = histogram.maxBucket;
          histogram.addSample(v, w);
          expect(histogram.maxBucket).toBeGreaterThanOrEqual(before);
        },
      ),
    );
  });

  it('keeps every percentile within one occupied bucket across a checkpoint', () => {
    // Weights within a factor 100 of each other: none is small enough to be dropped.
    const comparableSamples = fc.array(
      fc.tuple(value, fc.double({ min: 0.1, max: 10, noNaN: true })),
      { minLength: 1, maxLength: 15 },
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...OPTIONS),
        comparableSamples,
        (options, entries) => {
          const original = histogramOf(options, entries);
          const reloaded = new Histogram(options);
          reloaded.loadCheckpoint(
            JSON.parse(JSON.stringify(original.saveCheckpoint())),
          );
          const last = options.numBuckets - 1;
          const occupiedEdges = [
            ...new Set(
              entries.map(([v]) => Math.min(options.findBucket(v) + 1, last)),
            ),
          ].sort((x, y) => x - y);
          for (const p of PERCENTILES) {
            const before = occupiedEdges.indexOf(
              edgeIndex(options, original.percentile(p)),
            );
            const after = occupiedEdges.indexOf(
              edgeIndex(options, reloaded.percentile(p)),
            );
            expect(before).toBeGreaterThanOrEqual(0);
            expect(Math.abs(after - before)).toBeLessThanOrEqual(1);
          }
          expect(reloaded.totalWeight).toBe(original.totalWeight);
        },
      ),
    );
  });
});

describe('DecayingHistogram properties', () => {
  const HOUR = 3600_000;

  it('halves a sample’s relative weight per half-life of age', () => {
    fc.assert(
      fc.property(
        fc.integer({
          min: Date.parse('2000-01-01'),
          max: Date.parse('2100-01-01'),
        }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 48 }).map((hours) => hours * HOUR),
        (start, halfLives, halfLife) => {
          const histogram = new DecayingHistogram(
            linearHistogramOptions(10, 1, 1e-300),
            halfLife,
          );
          histogram.addSample(1, 1, start);
          histogram.addSample(5, 1, start + halfLives * halfLife);
          const ratio = histogram.bucketWeight(5) / histogram.bucketWeight(1);
          expect(ratio / 2 ** halfLives).toBeCloseTo(1, 12);
        },
      ),
    );
  });

  it('keeps relative weights across reference shifts', () => {
    fc.assert(
      fc.property(
        fc.integer({
          min: Date.parse('2000-01-01'),
          max: Date.parse('2100-01-01'),
        }),
        fc.uniqueArray(fc.integer({ min: 0, max: 400 }), {
          minLength: 2,
          maxLength: 20,
        }),
        (start, offsetsInHours) => {
          const offsets = [...offsetsInHours].sort((a, b) => a - b);
          const histogram = new DecayingHistogram(
            linearHistogramOptions(500, 1, 1e-300),
            HOUR,
          );
          for (const offset of offsets)
            histogram.addSample(offset, 1, start + offset * HOUR);
          const newest = offsets[offsets.length - 1] ?? 0;
          for (const offset of offsets.filter((o) => newest - o < 900)) {
            const relative =
              histogram.bucketWeight(offset) / histogram.bucketWeight(newest);
            expect(relative / 2 ** (offset - newest)).toBeCloseTo(1, 12);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('answers after clear() exactly as a new histogram given the same samples', () => {
    const timed = fc.array(
      fc.tuple(
        value.filter((v) => v >= 0),
        weight,
        fc.integer({ min: 0, max: 300 }).map((hours) => hours * HOUR),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...OPTIONS),
        timed,
        timed,
        timed,
        (options, before, after, merged) => {
          const start = Date.parse('2024-01-01');
          const feed = (histogram: DecayingHistogram) => {
            for (const [v, w, at] of after)
              histogram.addSample(v, w, start + at);
            const other = new DecayingHistogram(options, HOUR);
            for (const [v, w, at] of merged) other.addSample(v, w, start + at);
            histogram.merge(other);
            return histogram;
          };
          const reused = new DecayingHistogram(options, HOUR);
          for (const [v, w, at] of before) reused.addSample(v, w, start + at);
          reused.percentile(0.5); // running sums cached for the old weights
          reused.clear();
          const fresh = feed(new DecayingHistogram(options, HOUR));
          feed(reused);
          const state = (histogram: DecayingHistogram) => ({
            weights: Array.from({ length: options.numBuckets }, (_, bucket) =>
              histogram.bucketWeight(bucket),
            ),
            total: histogram.totalWeight,
            buckets: [histogram.minBucket, histogram.maxBucket],
            reference: histogram.referenceTimestampMs,
            percentiles: PERCENTILES.map((p) => histogram.percentile(p)),
            checkpoint: histogram.isEmpty() ? {} : histogram.saveCheckpoint(),
          });
          expect(state(reused)).toEqual(state(fresh));
        },
      ),
    );
  });
});
