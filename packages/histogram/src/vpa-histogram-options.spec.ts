import { Histogram } from './histogram.js';
import {
  CPU_HISTOGRAM_OPTIONS,
  MEMORY_HISTOGRAM_OPTIONS,
  VPA_HISTOGRAM_EPSILON,
} from './vpa-histogram-options.js';

// Golden vector 3. The expected numbers are the ones upstream's Go code produces (checked
// against vertical-pod-autoscaler v1.8.1 on amd64). They differ in the last digits from
// the reference document, whose figures were computed with ratio - 1 = 0.05 exactly and a
// correctly rounded power; in float64, 1.05 - 1 is 0.050000000000000044 and Go's Pow
// multiplies squarings, and those are the numbers a VPA status ends up holding.

function singleSamplePercentile(
  options: typeof CPU_HISTOGRAM_OPTIONS,
  value: number,
): number {
  const histogram = new Histogram(options);
  histogram.addSample(value, 1);
  return histogram.percentile(0.5);
}

describe('VPA histogram options', () => {
  it('have 176 buckets each and epsilon 1e-4', () => {
    expect(CPU_HISTOGRAM_OPTIONS.numBuckets).toBe(176);
    expect(MEMORY_HISTOGRAM_OPTIONS.numBuckets).toBe(176);
    expect(CPU_HISTOGRAM_OPTIONS.epsilon).toBe(1e-4);
    expect(VPA_HISTOGRAM_EPSILON).toBe(1e-4);
  });

  it('place the CPU bucket starts where upstream does', () => {
    expect(CPU_HISTOGRAM_OPTIONS.bucketStart(1)).toBe(0.01);
    expect(CPU_HISTOGRAM_OPTIONS.bucketStart(2)).toBe(0.020499999999999987);
    expect(CPU_HISTOGRAM_OPTIONS.bucketStart(3)).toBe(0.031525);
    expect(CPU_HISTOGRAM_OPTIONS.bucketStart(26)).toBe(0.5111345375888706);
    expect(CPU_HISTOGRAM_OPTIONS.bucketStart(175)).toBe(1021.1094089048601);
    expect(MEMORY_HISTOGRAM_OPTIONS.bucketStart(175)).toBe(1021109408904.86);
  });

  it.each([
    [0.001, 0, 0.01],
    [0.005, 0, 0.01],
    [0.01, 1, 0.020499999999999987],
    [0.5, 25, 0.5111345375888706],
    [1.0, 36, 1.0162813885540904],
    [2.0, 49, 2.093479957150735],
  ])(
    'CPU %p cores: bucket %p, any percentile %p',
    (cores, bucket, percentile) => {
      expect(CPU_HISTOGRAM_OPTIONS.findBucket(cores)).toBe(bucket);
      expect(singleSamplePercentile(CPU_HISTOGRAM_OPTIONS, cores)).toBe(
        percentile,
      );
    },
  );

  it.each([
    [209715200, 14, 215785635.88227338],
    [524288000, 26, 546691264.4683142],
    [5e6, 0, 1e7],
  ])(
    'memory %p bytes: bucket %p, any percentile %p',
    (bytes, bucket, percentile) => {
      expect(MEMORY_HISTOGRAM_OPTIONS.findBucket(bytes)).toBe(bucket);
      expect(singleSamplePercentile(MEMORY_HISTOGRAM_OPTIONS, bytes)).toBe(
        percentile,
      );
    },
  );
});
