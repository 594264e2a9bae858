import fc from 'fast-check';
import { DecayingHistogram } from './decaying-histogram.js';
import { exponentialHistogramOptions } from './exponential-options.js';
import { GO_ZERO_TIME_MS } from './go-time.js';
import type { HistogramOptions } from './histogram-options.js';
import { linearHistogramOptions } from './linear-options.js';
import {
  CPU_HISTOGRAM_OPTIONS,
  MEMORY_HISTOGRAM_OPTIONS,
} from './vpa-histogram-options.js';

const HOUR = 3600_000;
/** 2026-01-01T00:00:00Z: a recommender's first sample, far past Go's zero time. */
const START = Date.UTC(2026, 0, 1);
const OPTIONS: HistogramOptions[] = [
  linearHistogramOptions(20, 1, 0.05),
  exponentialHistogramOptions(100, 1, 1.3, 0.01),
  CPU_HISTOGRAM_OPTIONS,
  MEMORY_HISTOGRAM_OPTIONS,
];
const PERCENTILES = [0, 0.5, 0.9, 0.95, 1];

const value = fc.oneof(
  fc.double({ min: -5, max: 150, noNaN: true }),
  fc.integer({ min: 0, max: 2 ** 40 }),
);
const weight = fc.oneof(
  fc.constantFrom(0, 1e-3, 0.01, 0.05, 0.1, 1, 4),
  fc.double({ min: 0, max: 10, noNaN: true }),
);
/** Offsets from START, up to 250 half-lives of an hour: past the 2^100 renormalisation. */
const offset = fc.oneof(
  fc.integer({ min: 0, max: 3 * HOUR }),
  fc.integer({ min: 0, max: 250 * HOUR }),
);

type Operation =
  | { kind: 'add' | 'subtract'; value: number; weight: number; at: number }
  | { kind: 'merge'; value: number; weight: number; at: number }
  | { kind: 'clear' };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      value,
      weight,
      at: offset,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('subtract' as const, 'merge' as const),
      value,
      weight,
      at: offset,
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

function apply(histogram: DecayingHistogram, op: Operation): void {
  if (op.kind === 'clear') {
    histogram.clear();
    return;
  }
  const timeMs = START + op.at;
  if (op.kind === 'add') histogram.addSample(op.value, op.weight, timeMs);
  else if (op.kind === 'subtract')
    histogram.subtractSample(op.value, op.weight, timeMs);
  else {
    const other = new DecayingHistogram(histogram.options, HOUR);
    other.addSample(op.value, op.weight, timeMs);
    histogram.merge(other);
  }
}

/** Everything a reader can see, compared bit for bit (toBe is Object.is). */
function expectSame(
  actual: DecayingHistogram,
  expected: DecayingHistogram,
): void {
  expect(actual.referenceTimestampMs).toBe(expected.referenceTimestampMs);
  expect(actual.totalWeight).toBe(expected.totalWeight);
  expect(actual.minBucket).toBe(expected.minBucket);
  expect(actual.maxBucket).toBe(expected.maxBucket);
  for (let bucket = 0; bucket < actual.options.numBuckets; bucket++)
    expect(actual.bucketWeight(bucket)).toBe(expected.bucketWeight(bucket));
  for (const p of PERCENTILES)
    expect(actual.percentile(p)).toBe(expected.percentile(p));
  expect(actual.saveCheckpoint()).toEqual(expected.saveCheckpoint());
}

describe('DecayingHistogram properties', () => {
  it('takes a first sample without scaling exactly as the general shift from Go’s zero time does', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OPTIONS),
        fc.array(operation, { maxLength: 25 }),
        fc.double({ min: 0.05, max: 10, noNaN: true }),
        (options, operations, seedWeight) => {
          // Fresh: its first shift holds no weight, so only the reference moves.
          const fresh = new DecayingHistogram(options, HOUR);
          // Seeded one millisecond after Go's zero time: its first shift from there scales
          // a real weight by 2^-(millions of half-lives), the general path, down to 0.
          const seeded = new DecayingHistogram(options, HOUR);
          seeded.addSample(1, seedWeight, GO_ZERO_TIME_MS + 1);
          expect(seeded.isEmpty()).toBe(false);
          for (const op of operations) {
            apply(fresh, op);
            apply(seeded, op);
            if (op.kind !== 'clear') expectSame(fresh, seeded);
          }
        },
      ),
    );
  });
});
