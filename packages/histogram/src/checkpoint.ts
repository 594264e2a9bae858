import {
  CheckpointError,
  describeJsonValue,
  isJsonObject,
} from './checkpoint-error.js';
import { parseCheckpointTime } from './checkpoint-time.js';

/**
 * A histogram as stored in a `VerticalPodAutoscalerCheckpoint` (`status.cpuHistogram`,
 * `status.memoryHistogram`), field for field the upstream JSON.
 */
export interface HistogramCheckpoint {
  /** Decay reference time, RFC 3339 at whole seconds; null or absent for Go's zero time. */
  referenceTimestamp?: string | null;
  /** Bucket index (decimal string) to weight: saved in 1..MAX_CHECKPOINT_WEIGHT, any uint32 loads. */
  bucketWeights: Record<string, number>;
  /** Sum of all weights before quantisation; loading rescales the stored weights to it. */
  totalWeight: number;
}

/**
 * A decaying histogram's saved checkpoint. A class rather than an object literal because
 * V8 pretenures literals: it tracks each literal's allocation site, and once most of a
 * site's objects outlive a young-generation collection (a cycle or a check that keeps
 * every checkpoint it saved), it allocates that site's objects in the old generation from
 * then on. The bucket weights and timestamps a checkpoint points to are still allocated
 * young, so every old checkpoint, long dead, keeps them alive through each scavenge until
 * the next full collection: in a process with a large heap (the recommender's, with the
 * Kubernetes client loaded) saving took two to three times as long (docs/benchmarks.md).
 * `new` has no allocation site, so these objects die young. JSON and field order are the
 * literal's.
 */
export class SavedHistogramCheckpoint implements HistogramCheckpoint {
  constructor(
    public referenceTimestamp: string | null,
    public bucketWeights: Record<string, number>,
    public totalWeight: number,
  ) {}
}

/** Weight stored for the heaviest bucket; the others are scaled relative to it. */
export const MAX_CHECKPOINT_WEIGHT = 10000;

const MAX_UINT32 = 2 ** 32 - 1;
const CANONICAL_INDEX = /^(0|[1-9][0-9]*)$/;

/** A checkpoint that passed validation, ready to be added to a histogram. */
export interface ValidatedHistogramCheckpoint {
  readonly totalWeight: number;
  /** [bucket, stored integer weight] pairs. */
  readonly bucketWeights: readonly (readonly [number, number])[];
  /** Sum of the stored integer weights. */
  readonly storedWeightSum: number;
  /** Unix milliseconds; GO_ZERO_TIME_MS when absent. */
  readonly referenceTimestampMs: number;
}

/**
 * Checks a checkpoint read from the API against histograms with `numBuckets` buckets.
 * Fields upstream omits when empty (`omitempty`) may be absent: no weights, total 0, zero
 * reference time. Everything else that is not exactly right is a {@link CheckpointError}.
 */
export function validateHistogramCheckpoint(
  checkpoint: unknown,
  numBuckets: number,
): ValidatedHistogramCheckpoint {
  if (!isJsonObject(checkpoint)) {
    throw new CheckpointError(
      '',
      `a histogram checkpoint must be a JSON object, got ${describeJsonValue(checkpoint)}`,
    );
  }
  const bucketWeights = validateBucketWeights(
    checkpoint['bucketWeights'],
    numBuckets,
  );
  return {
    totalWeight: validateTotalWeight(checkpoint['totalWeight']),
    bucketWeights,
    storedWeightSum: bucketWeights.reduce((sum, [, weight]) => sum + weight, 0),
    referenceTimestampMs: parseCheckpointTime(
      checkpoint['referenceTimestamp'],
      'referenceTimestamp',
    ),
  };
}

function validateTotalWeight(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new CheckpointError(
      'totalWeight',
      `must be a finite number >= 0, got ${describeJsonValue(value)}`,
    );
  }
  return value;
}

function validateBucketWeights(
  value: unknown,
  numBuckets: number,
): [number, number][] {
  if (value === undefined || value === null) return [];
  if (!isJsonObject(value)) {
    throw new CheckpointError(
      'bucketWeights',
      `must be an object of bucket index to weight, got ${describeJsonValue(value)}`,
    );
  }
  return Object.entries(value).map(([key, weight]) => {
    const field = `bucketWeights[${JSON.stringify(key)}]`;
    if (!CANONICAL_INDEX.test(key)) {
      throw new CheckpointError(
        field,
        `bucket index must be a non-negative decimal integer, got ${JSON.stringify(key)}`,
      );
    }
    const bucket = Number(key);
    if (bucket >= numBuckets) {
      throw new CheckpointError(
        field,
        `bucket index ${key} is out of range [0, ${numBuckets - 1}]`,
      );
    }
    if (
      typeof weight !== 'number' ||
      !Number.isInteger(weight) ||
      weight < 0 ||
      weight > MAX_UINT32
    ) {
      throw new CheckpointError(
        field,
        `weight must be an integer in [0, ${MAX_UINT32}], got ${describeJsonValue(weight)}`,
      );
    }
    return [bucket, weight];
  });
}
