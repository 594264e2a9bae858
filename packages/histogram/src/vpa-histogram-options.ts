import { exponentialHistogramOptions } from './exponential-options.js';

/** Weight of one CPU usage sample in the VPA model (`minSampleWeight` upstream). */
export const MIN_SAMPLE_WEIGHT = 0.1;

/**
 * Lightest bucket that still counts, 1e-4: small enough that a minimum-weight sample decayed
 * over the whole 8-day memory window at a 24 h half-life (factor 2^-8) stays above it.
 */
export const VPA_HISTOGRAM_EPSILON = 0.001 * MIN_SAMPLE_WEIGHT;

/** Each bucket is 5 % wider than the previous one. */
const BUCKET_GROWTH_RATIO = 1 + 0.05;

/**
 * CPU usage in cores: 10-millicore first bucket up to 1000 cores, 176 buckets. Changing
 * these invalidates checkpoints (upstream ties them to checkpoint version v3).
 */
export const CPU_HISTOGRAM_OPTIONS = exponentialHistogramOptions(
  1000,
  0.01,
  BUCKET_GROWTH_RATIO,
  VPA_HISTOGRAM_EPSILON,
);

/** Memory peaks in bytes: 10 MB (decimal) first bucket up to 1 TB, 176 buckets. */
export const MEMORY_HISTOGRAM_OPTIONS = exponentialHistogramOptions(
  1e12,
  1e7,
  BUCKET_GROWTH_RATIO,
  VPA_HISTOGRAM_EPSILON,
);
