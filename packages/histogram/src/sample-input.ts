/**
 * Checks on what callers feed the histograms. Upstream panics on a negative weight and has
 * no NaN to worry about (its values come from integers); we refuse every input that would
 * silently corrupt the weights, loudly and before anything changes.
 */

export function requireSampleValue(value: number): void {
  if (!Number.isFinite(value)) {
    throw new RangeError(`sample value must be a finite number, got ${value}`);
  }
}

export function requireSampleWeight(weight: number): void {
  if (!(weight >= 0 && weight < Infinity)) {
    throw new RangeError(
      `sample weight must be a finite number >= 0, got ${weight}`,
    );
  }
}

export function requireSampleTime(timeMs: number): void {
  if (!Number.isFinite(timeMs)) {
    throw new RangeError(
      `sample time must be finite milliseconds since the Unix epoch, got ${timeMs}`,
    );
  }
}

/**
 * The three checks of a timed sample in one condition, the precise error left to the cold
 * path: `DecayingHistogram.addSample` runs it for every sample, and V8 inlines the whole
 * sample path only while its bytecode fits the inlining budget.
 */
export function requireTimedSample(
  value: number,
  weight: number,
  timeMs: number,
): void {
  if (
    !(
      Number.isFinite(value) &&
      weight >= 0 &&
      weight < Infinity &&
      Number.isFinite(timeMs)
    )
  ) {
    refuseTimedSample(value, weight, timeMs);
  }
}

function refuseTimedSample(
  value: number,
  weight: number,
  timeMs: number,
): void {
  requireSampleValue(value);
  requireSampleWeight(weight);
  requireSampleTime(timeMs);
}
