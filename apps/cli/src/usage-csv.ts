import {
  parseCpuMillicores,
  parseMemoryBytes,
  QuantityError,
} from '@tandem/vpa-api';

/** One metrics snapshot of one container, in the units the recommender uses. */
export interface UsageSample {
  seriesId: string;
  timeMs: number;
  cpuMillicores: number;
  memoryBytes: number;
}

export const USAGE_CSV_HEADER = 'timestamp_s,series_id,cpu_cores,memory_bytes';

/** A malformed usage file, located to the line a person can open in an editor. */
export class UsageCsvError extends Error {
  override name = 'UsageCsvError';
  /** The file, set by the reader that met the line. */
  path = '';
  constructor(
    readonly lineNumber: number,
    readonly reason: string,
  ) {
    super(`line ${lineNumber}: ${reason}`);
  }
}

/** Checks the first line; a byte-order mark and a CR line ending are tolerated. */
export function checkUsageHeader(line: string): void {
  const header = stripLineEnd(line).replace(/^\uFEFF/, '');
  if (header !== USAGE_CSV_HEADER) {
    throw new UsageCsvError(
      1,
      `expected the header '${USAGE_CSV_HEADER}', found '${header}'`,
    );
  }
}

/**
 * Parses one data row. CPU and memory are converted the way a Kubernetes quantity
 * would be (exact decimal maths, rounded up to a whole millicore / byte), which is
 * what the recommender sees from metrics.k8s.io. Returns undefined for a blank line.
 */
export function parseUsageRow(
  line: string,
  lineNumber: number,
): UsageSample | undefined {
  const text = stripLineEnd(line);
  if (text.trim() === '') return undefined;
  const fields = text.split(',');
  if (fields.length !== 4) {
    throw new UsageCsvError(
      lineNumber,
      `expected 4 comma-separated fields, found ${fields.length}`,
    );
  }
  const [timestamp, seriesId, cpu, memory] = fields as [
    string,
    string,
    string,
    string,
  ];
  return {
    ...parseRowKey(timestamp, seriesId, lineNumber),
    cpuMillicores: parseUsageAmount(
      cpu,
      'cpu_cores',
      parseCpuMillicores,
      lineNumber,
    ),
    memoryBytes: parseUsageAmount(
      memory,
      'memory_bytes',
      parseMemoryBytes,
      lineNumber,
    ),
  };
}

/** A row's `timestamp_s` (seconds, as Unix milliseconds) and `series_id`, checked. */
export function parseRowKey(
  timestamp: string,
  seriesId: string,
  lineNumber: number,
): { seriesId: string; timeMs: number } {
  const seconds = Number(timestamp);
  if (timestamp.trim() === '' || !Number.isFinite(seconds)) {
    throw new UsageCsvError(
      lineNumber,
      `timestamp_s '${timestamp}' is not a finite number of seconds`,
    );
  }
  if (seriesId === '')
    throw new UsageCsvError(lineNumber, 'series_id is empty');
  return { seriesId, timeMs: seconds * 1000 };
}

/** A replay reads each series forward: a row older than its series' last one is an error. */
export function requireTimeOrder(
  seriesId: string,
  previousMs: number | undefined,
  timeMs: number,
  lineNumber: number,
): void {
  if (previousMs !== undefined && timeMs < previousMs)
    throw new UsageCsvError(
      lineNumber,
      `time goes backwards in series '${seriesId}': ${timeMs / 1000} s after ${previousMs / 1000} s`,
    );
}

/** A CPU or memory cell as a whole, non-negative amount, or a UsageCsvError naming the column. */
export function parseUsageAmount(
  text: string,
  column: string,
  parse: (quantity: string) => number,
  lineNumber: number,
): number {
  let amount: number;
  try {
    amount = parse(text);
  } catch (error) {
    if (error instanceof QuantityError) {
      throw new UsageCsvError(
        lineNumber,
        `${column} '${text}' is not a number: ${error.message}`,
      );
    }
    throw error;
  }
  if (amount < 0)
    throw new UsageCsvError(lineNumber, `${column} '${text}' is negative`);
  return amount;
}

export function stripLineEnd(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
