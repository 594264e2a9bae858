/**
 * Float arithmetic leaves noise in the last bits (`100 × 0.07 = 7.000000000000001`).
 * Rounding that noise up would publish 7001m for a true 7, so a product this close to a
 * whole number of milli-units, relative to its size, counts as that whole number. Real
 * differences this small are far below anything the HPA can act on (its tolerance is 10%).
 */
const FLOAT_NOISE = 1e-12;

/**
 * A metric value as Kubernetes quantity text at milli precision, rounded up as the HPA's
 * `MilliValue()` rounds what it reads (so finer digits would buy nothing): `61.5` →
 * `61500m`, `60` → `60`, `0.0001` → `1m`, `0` → `0`. Whole values print as bare integers;
 * the text never uses an exponent, however large the value (memory bytes up to 2^53 and
 * beyond). Throws a RangeError for NaN and infinities, which have no quantity.
 */
export function formatMetricQuantity(value: number): string {
  if (!Number.isFinite(value)) {
    throw new RangeError(`metric value ${value} is not a finite number`);
  }
  // BigInt keeps every digit: a double's own printing switches to an exponent at 10^21
  // and rounds long integers to their shortest round-trip digits.
  if (Number.isSafeInteger(value)) return String(value);
  if (Number.isInteger(value)) return BigInt(value).toString();
  const millis = roundedUpMillis(value);
  if (millis % 1000n === 0n) return (millis / 1000n).toString();
  return `${millis}m`;
}

/** value × 1000 rounded up (toward +∞), float noise forgiven. */
export function roundedUpMillis(value: number): bigint {
  if (Number.isInteger(value)) return BigInt(value) * 1000n;
  const scaled = value * 1000;
  const nearest = Math.round(scaled);
  const isNoise = Math.abs(scaled - nearest) <= Math.abs(scaled) * FLOAT_NOISE;
  return BigInt(isNoise ? nearest : Math.ceil(scaled));
}

/**
 * A utilization as the native HPA writes one: whole percent, truncated toward zero
 * (`int32(metricsTotal * 100 / requestsTotal)` in k8s.io/kubernetes
 * pkg/controller/podautoscaler/metrics/utilization.go, `GetResourceUtilizationRatio`), so
 * `kubectl get hpa` reads `47/40` rather than `47750m/40` (ADR 0023). Float noise just
 * under a whole number (`100 × 0.07 / 0.1 = 69.99999999999999`) counts as that number.
 */
export function wholePercent(value: number): number {
  const nearest = Math.round(value);
  return Math.abs(value - nearest) <= Math.abs(value) * FLOAT_NOISE
    ? nearest
    : Math.floor(value);
}
