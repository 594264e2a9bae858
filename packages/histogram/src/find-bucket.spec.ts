import { exponentialHistogramOptions } from './exponential-options.js';
import { logLikeGo } from './go-math.js';
import {
  CPU_HISTOGRAM_OPTIONS,
  MEMORY_HISTOGRAM_OPTIONS,
} from './vpa-histogram-options.js';

/**
 * findBucket files most values through a table of bucket starts; it must name exactly the
 * bucket upstream's logarithm does, including for values a few ulps from a bucket edge.
 */
describe('exponential findBucket agrees with the logarithm', () => {
  const bits = new Float64Array(1);
  const word = new BigInt64Array(bits.buffer);
  const ulpsAway = (value: number, ulps: number): number => {
    bits[0] = value;
    word[0] = (word[0] ?? 0n) + BigInt(ulps);
    return bits[0] ?? Number.NaN;
  };

  const cases: [string, number, number, number][] = [
    ['CPU', 1000, 0.01, 1.05],
    ['memory', 1e12, 1e7, 1.05],
    ['coarse', 500, 40, 1.5],
    ['fine', 100, 0.001, 1.01],
    ['doubling', 1e6, 1, 2],
    ['tiny values', 1e-3, 1e-9, 1.07],
  ];

  it.each(cases)(
    '%s buckets: every edge ±40 ulps and ±1e-12..1e-3 relative',
    (_name, maxValue, firstBucketSize, ratio) => {
      const options = exponentialHistogramOptions(
        maxValue,
        firstBucketSize,
        ratio,
        1e-4,
      );
      const logRatio = logLikeGo(ratio);
      const byLogarithm = (value: number): number => {
        if (!(value >= firstBucketSize)) return 0;
        const bucket = Math.trunc(
          logLikeGo((value * (ratio - 1)) / firstBucketSize + 1) / logRatio,
        );
        return Math.min(bucket, options.numBuckets - 1);
      };
      const mismatches: number[] = [];
      for (let bucket = 0; bucket < options.numBuckets; bucket++) {
        const start = options.bucketStart(bucket);
        const values = [start * 4];
        for (let ulps = -40; ulps <= 40; ulps++)
          values.push(ulpsAway(start, ulps));
        for (const relative of [1e-12, 1e-10, 1e-9, 1e-8, 1e-6, 1e-3])
          values.push(start * (1 + relative), start * (1 - relative));
        for (const value of values) {
          if (options.findBucket(value) !== byLogarithm(value))
            mismatches.push(value);
        }
      }
      expect(mismatches).toEqual([]);
    },
  );

  it('files every whole millicore up to 200 cores and sampled memory sizes like upstream', () => {
    const logRatio = logLikeGo(1.05);
    const upstream = (value: number, first: number): number =>
      value >= first
        ? Math.min(
            Math.trunc(logLikeGo((value * (1.05 - 1)) / first + 1) / logRatio),
            175,
          )
        : 0;
    const mismatches: number[] = [];
    for (let millicores = 0; millicores <= 200_000; millicores++) {
      const cores = millicores / 1000;
      if (CPU_HISTOGRAM_OPTIONS.findBucket(cores) !== upstream(cores, 0.01))
        mismatches.push(cores);
    }
    for (let mebibytes = 1; mebibytes <= 200_000; mebibytes += 7) {
      const bytes = mebibytes * 1048576 + (mebibytes % 1000);
      if (MEMORY_HISTOGRAM_OPTIONS.findBucket(bytes) !== upstream(bytes, 1e7))
        mismatches.push(bytes);
    }
    expect(mismatches).toEqual([]);
  });
});
