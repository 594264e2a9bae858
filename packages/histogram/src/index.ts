export {
  type HistogramCheckpoint,
  MAX_CHECKPOINT_WEIGHT,
  type ValidatedHistogramCheckpoint,
  validateHistogramCheckpoint,
} from './checkpoint.js';
export {
  CheckpointError,
  describeJsonValue,
  isJsonObject,
} from './checkpoint-error.js';
export {
  formatCheckpointTime,
  parseCheckpointTime,
} from './checkpoint-time.js';
export { DecayingHistogram } from './decaying-histogram.js';
export { exponentialHistogramOptions } from './exponential-options.js';
export { integerPowerLikeGo } from './go-math.js';
export { elapsedNanosLikeGo, GO_ZERO_TIME_MS } from './go-time.js';
export { Histogram } from './histogram.js';
export type { HistogramOptions } from './histogram-options.js';
export { linearHistogramOptions } from './linear-options.js';
export {
  CPU_HISTOGRAM_OPTIONS,
  MEMORY_HISTOGRAM_OPTIONS,
  MIN_SAMPLE_WEIGHT,
  VPA_HISTOGRAM_EPSILON,
} from './vpa-histogram-options.js';
