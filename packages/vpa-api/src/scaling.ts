import { Quantity } from './quantity.js';
import { ResourceName } from './types.js';

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);

export interface ScaledQuantity {
  quantity: Quantity;
  /** The exact result did not fit an int64 and was replaced by MaxInt64 (milli for CPU). */
  cappedToInt64: boolean;
}

/**
 * `quantity × to / from`, the way upstream keeps a limit-to-request ratio: CPU in whole
 * millicores, any other resource (memory) in whole units, with big-integer maths.
 *
 * CPU rounds down, or up with `cpuRounding: 'ceil'` (used when raising values to a minimum).
 * Memory always rounds down: upstream's "round to a full unit" steps act on a value that is
 * already a whole number of bytes, so they change nothing.
 *
 * The result keeps the format of `quantity`. A zero `from` returns `quantity` unchanged
 * (upstream does so for CPU and panics for memory).
 */
export function scaleProportionally(
  resource: string,
  quantity: Quantity,
  from: Quantity,
  to: Quantity,
  cpuRounding: 'floor' | 'ceil' = 'floor',
): ScaledQuantity {
  if (from.isZero()) return { quantity, cappedToInt64: false };
  if (resource === ResourceName.cpu) {
    const millis = divide(
      quantity.milliValue() * to.milliValue(),
      from.milliValue(),
      cpuRounding,
    );
    return fitInt64(millis, (value) =>
      Quantity.fromMilli(value, quantity.format),
    );
  }
  const units = divide(quantity.value() * to.value(), from.value(), 'floor');
  return fitInt64(units, (value) => Quantity.fromValue(value, quantity.format));
}

function fitInt64(
  value: bigint,
  build: (value: bigint) => Quantity,
): ScaledQuantity {
  const fits = value <= MAX_INT64 && value >= MIN_INT64;
  return { quantity: build(fits ? value : MAX_INT64), cappedToInt64: !fits };
}

function divide(
  dividend: bigint,
  divisor: bigint,
  rounding: 'floor' | 'ceil',
): bigint {
  const truncated = dividend / divisor;
  if (dividend % divisor === 0n) return truncated;
  const negative = dividend < 0n !== divisor < 0n;
  if (rounding === 'floor') return negative ? truncated - 1n : truncated;
  return negative ? truncated : truncated + 1n;
}
