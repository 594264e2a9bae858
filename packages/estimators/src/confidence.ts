import { elapsedNanosLikeGo } from '@tandem/histogram';
import type { AggregateContainerState } from './aggregate-container-state.js';

const NANOS_PER_MILLI = 1e6;
const MS_PER_MINUTE = 60_000;
const NANOS_PER_MINUTE = 60e9;

/**
 * How much history an aggregate holds, in units of `intervalMs` (a day by default): the
 * smaller of the time between its first and last CPU sample and its CPU sample count at one
 * sample per minute. A workload sampled every minute for N intervals has confidence N; N
 * replicas reach it N times sooner by count, never sooner by time.
 */
export function confidence(
  state: AggregateContainerState,
  intervalMs: number,
): number {
  // Computed as Go does: float64 nanoseconds, and Duration.Minutes() for the count.
  const lifespan =
    elapsedNanosLikeGo(state.firstSampleStartMs, state.lastSampleStartMs) /
    (intervalMs * NANOS_PER_MILLI);
  const samplesAmount = state.totalSamplesCount / minutesLikeGo(intervalMs);
  return Math.min(lifespan, samplesAmount);
}

/** Go's Duration.Minutes(): whole minutes plus the remaining nanoseconds as a fraction. */
function minutesLikeGo(durationMs: number): number {
  const wholeMinutes = Math.trunc(durationMs / MS_PER_MINUTE);
  const remainderNanos = (durationMs % MS_PER_MINUTE) * NANOS_PER_MILLI;
  return wholeMinutes + remainderNanos / NANOS_PER_MINUTE;
}
