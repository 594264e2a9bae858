/**
 * Go's time arithmetic, reproduced on JavaScript millisecond timestamps.
 *
 * Upstream keeps times as `time.Time` and durations as int64 nanoseconds. Tandem keeps Unix
 * milliseconds in plain numbers; the helpers below give the same results as Go as long as
 * timestamps are whole milliseconds (Kubernetes API times have whole seconds).
 */

/** Go's zero `time.Time`, 0001-01-01T00:00:00Z, in Unix milliseconds: upstream's "never". */
export const GO_ZERO_TIME_MS = -62135596800000;

const NANOS_PER_MILLI = 1e6;
/** `float64(math.MaxInt64)` and `float64(math.MinInt64)`: a saturated Duration as a float. */
const SATURATED_DURATION_NANOS = 2 ** 63;

/**
 * Go's `float64(end.Sub(start))`: the nanoseconds from `start` to `end` as a double.
 *
 * Go first makes an exact int64 count of nanoseconds (saturating at about ±292 years) and
 * then rounds it to a double. With whole-millisecond inputs, `endMs - startMs` is exact and
 * multiplying it by 10^6 is a single correctly rounded operation on the exact nanosecond
 * count: the very rounding Go's int64-to-float64 conversion does. Dividing such values
 * therefore gives Go's bits at any distance. (Dividing the millisecond counts directly is
 * also bit-identical while both nanosecond counts stay below 2^53, about 104 days, because
 * then both conversions are exact and the quotient of the same two reals rounds the same
 * way; beyond that it could differ in the last bit, which is why we scale first.)
 */
export function elapsedNanosLikeGo(startMs: number, endMs: number): number {
  const nanos = (endMs - startMs) * NANOS_PER_MILLI;
  return Math.min(
    Math.max(nanos, -SATURATED_DURATION_NANOS),
    SATURATED_DURATION_NANOS,
  );
}

/**
 * Go's `time.Time.Round(period)`: the nearest multiple of `period` counted from Go's zero
 * time (not from the Unix epoch, which matters for periods that do not divide a day),
 * halfway values rounded up.
 */
export function roundLikeGo(timeMs: number, periodMs: number): number {
  const sinceZero = timeMs - GO_ZERO_TIME_MS;
  const remainder = ((sinceZero % periodMs) + periodMs) % periodMs;
  return remainder * 2 < periodMs
    ? timeMs - remainder
    : timeMs + (periodMs - remainder);
}
