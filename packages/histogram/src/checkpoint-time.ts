import { CheckpointError, describeJsonValue } from './checkpoint-error.js';
import { GO_ZERO_TIME_MS } from './go-time.js';

/**
 * Timestamps as Kubernetes stores them in checkpoints (`metav1.Time`): RFC 3339 at whole
 * seconds in UTC (`2024-01-02T00:00:00Z`), and `null` for Go's zero time.
 */

const MS_PER_SECOND = 1000;
const MS_PER_MINUTE = 60 * MS_PER_SECOND;
/** 10000-01-01T00:00:00Z: RFC 3339 has four-digit years. */
const END_OF_YEAR_9999_MS = 253402300800000;
/** Date.UTC maps years 0..99 to 1900..1999; shifting by a whole 400-year Gregorian cycle avoids it. */
const GREGORIAN_CYCLE_YEARS = 400;
const GREGORIAN_CYCLE_MS = 146097 * 24 * 60 * MS_PER_MINUTE;

const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/** `timeMs` as checkpoint JSON: whole seconds (truncated, like Go's formatting), null for the zero time. */
export function formatCheckpointTime(timeMs: number): string | null {
  if (timeMs === GO_ZERO_TIME_MS) return null;
  if (!(timeMs >= GO_ZERO_TIME_MS && timeMs < END_OF_YEAR_9999_MS)) {
    throw new RangeError(
      `time ${timeMs} ms is outside the years 0001..9999 that RFC 3339 can express`,
    );
  }
  const wholeSeconds = Math.floor(timeMs / MS_PER_SECOND) * MS_PER_SECOND;
  let text = recentlyFormatted.get(wholeSeconds);
  if (text === undefined) {
    // toISOString() gives YYYY-MM-DDTHH:MM:SS.sssZ for these years; drop the milliseconds.
    text = `${new Date(wholeSeconds).toISOString().slice(0, 19)}Z`;
    if (recentlyFormatted.size >= RECENTLY_FORMATTED_LIMIT)
      recentlyFormatted.clear();
    recentlyFormatted.set(wholeSeconds, text);
  }
  return text;
}

/**
 * A recommender writes thousands of checkpoints per cycle whose times are mostly the same
 * few (the cycle's time, day-aligned reference times, the last sample time): remembering
 * recent texts saves most of the formatting, a bounded map keeps the memory flat.
 */
const RECENTLY_FORMATTED_LIMIT = 1024;
const recentlyFormatted = new Map<number, string>();

/**
 * Parses a checkpoint timestamp: RFC 3339 text, or null/absent for the zero time. Fractions
 * of a second below a millisecond are dropped. Anything else is a {@link CheckpointError}
 * naming `field`.
 */
export function parseCheckpointTime(value: unknown, field: string): number {
  if (value === null || value === undefined) return GO_ZERO_TIME_MS;
  if (typeof value !== 'string') {
    throw new CheckpointError(
      field,
      `expected an RFC 3339 timestamp or null, got ${describeJsonValue(value)}`,
    );
  }
  const timeMs = rfc3339ToMs(value);
  if (timeMs === undefined) {
    throw new CheckpointError(
      field,
      `expected an RFC 3339 timestamp such as "2024-01-02T00:00:00Z", got ${JSON.stringify(value)}`,
    );
  }
  return timeMs;
}

function rfc3339ToMs(text: string): number | undefined {
  const match = RFC_3339.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match
    .slice(1, 7)
    .map(Number) as [number, number, number, number, number, number];
  const fraction = match[7] ?? '';
  const isUtc = match[8] === 'Z';
  const offsetSign = match[9] === '-' ? -1 : 1;
  const offsetHours = Number(match[10] ?? 0);
  const offsetMinutes = Number(match[11] ?? 0);

  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    offsetHours > 23 ||
    offsetMinutes > 59
  ) {
    return undefined;
  }

  const localMs =
    Date.UTC(
      year + GREGORIAN_CYCLE_YEARS,
      month - 1,
      day,
      hour,
      minute,
      second,
    ) -
    GREGORIAN_CYCLE_MS +
    Number(fraction.padEnd(3, '0').slice(0, 3));
  const offsetMs = isUtc
    ? 0
    : offsetSign * (offsetHours * 60 + offsetMinutes) * MS_PER_MINUTE;
  return localMs - offsetMs;
}

function daysInMonth(year: number, month: number): number {
  const isLeap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const lengths = [
    31,
    isLeap ? 29 : 28,
    31,
    30,
    31,
    30,
    31,
    31,
    30,
    31,
    30,
    31,
  ];
  return lengths[month - 1] ?? 0;
}
