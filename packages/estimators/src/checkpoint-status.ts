import {
  CheckpointError,
  describeJsonValue,
  type HistogramCheckpoint,
  isJsonObject,
  parseCheckpointTime,
} from '@tandem/histogram';

/** The only checkpoint layout upstream (and Tandem) reads and writes. */
export const SUPPORTED_CHECKPOINT_VERSION = 'v3';

/**
 * The `status` of a `VerticalPodAutoscalerCheckpoint`, field for field the upstream JSON.
 * Times are RFC 3339 at whole seconds, null for "never".
 */
export interface AggregateCheckpointStatus {
  lastUpdateTime: string | null;
  version: string;
  cpuHistogram: HistogramCheckpoint;
  memoryHistogram: HistogramCheckpoint;
  firstSampleStart: string | null;
  lastSampleStart: string | null;
  totalSamplesCount: number;
}

/**
 * An aggregate's saved checkpoint status: a class, not an object literal, so that V8 never
 * allocates it in the old generation ahead of its young histograms (see
 * `SavedHistogramCheckpoint` in @tandem/histogram). JSON and field order are the literal's.
 */
export class SavedAggregateCheckpoint implements AggregateCheckpointStatus {
  constructor(
    public lastUpdateTime: string | null,
    public version: string,
    public cpuHistogram: HistogramCheckpoint,
    public memoryHistogram: HistogramCheckpoint,
    public firstSampleStart: string | null,
    public lastSampleStart: string | null,
    public totalSamplesCount: number,
  ) {}
}

/** The scalar part of a checkpoint status, validated; histograms are validated by their loader. */
export interface CheckpointStatusFields {
  readonly firstSampleStartMs: number;
  readonly lastSampleStartMs: number;
  readonly totalSamplesCount: number;
  /** Absent histograms (upstream would decode a zero value) read as empty ones. */
  readonly cpuHistogram: unknown;
  readonly memoryHistogram: unknown;
}

/**
 * Checks a checkpoint status read from the API. Fields upstream omits when empty may be
 * absent; anything else that is not exactly right is a CheckpointError naming the field.
 */
export function readCheckpointStatus(status: unknown): CheckpointStatusFields {
  if (!isJsonObject(status)) {
    throw new CheckpointError(
      'status',
      `a checkpoint status must be a JSON object, got ${describeJsonValue(status)}`,
    );
  }
  const version = status['version'];
  if (version !== SUPPORTED_CHECKPOINT_VERSION) {
    throw new CheckpointError(
      'status.version',
      `unsupported checkpoint version ${describeJsonValue(version)}, expected "${SUPPORTED_CHECKPOINT_VERSION}"`,
    );
  }
  const count = status['totalSamplesCount'] ?? 0;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new CheckpointError(
      'status.totalSamplesCount',
      `must be a non-negative integer, got ${describeJsonValue(count)}`,
    );
  }
  return {
    firstSampleStartMs: parseCheckpointTime(
      status['firstSampleStart'],
      'status.firstSampleStart',
    ),
    lastSampleStartMs: parseCheckpointTime(
      status['lastSampleStart'],
      'status.lastSampleStart',
    ),
    totalSamplesCount: count,
    cpuHistogram: status['cpuHistogram'] ?? {},
    memoryHistogram: status['memoryHistogram'] ?? {},
  };
}
