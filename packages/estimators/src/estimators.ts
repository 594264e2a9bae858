import { integerPowerLikeGo } from '@tandem/histogram';
import type { AggregateContainerState } from './aggregate-container-state.js';
import { confidence } from './confidence.js';
import {
  cpuAmountFromCores,
  type ResourceName,
  scaleResourceAmount,
  toResourceAmount,
} from './resource-amount.js';

/**
 * An estimate of one resource for an aggregate, in whole millicores or bytes. Estimators are
 * composed like upstream's: percentile → margin → confidence multiplier → minimum, with each
 * step's truncation exactly where upstream truncates.
 */
export type AmountEstimator = (state: AggregateContainerState) => number;

/** The p-th percentile of the CPU (as millicores) or memory (as bytes) histogram. */
export function percentileEstimator(
  resource: ResourceName,
  percentile: number,
): AmountEstimator {
  return resource === 'cpu'
    ? (state) => cpuAmountFromCores(state.cpuHistogram.percentile(percentile))
    : (state) => toResourceAmount(state.memoryHistogram.percentile(percentile));
}

/** base + trunc(base × marginFraction). The sum itself is not capped, as upstream. */
export function withMargin(
  marginFraction: number,
  base: AmountEstimator,
): AmountEstimator {
  return (state) => {
    const amount = base(state);
    return amount + scaleResourceAmount(amount, marginFraction);
  };
}

/**
 * base × (1 + multiplier / confidence)^exponent, truncated: widens the bounds while little
 * history exists. With no history (confidence 0) the factor is +∞ for a positive exponent
 * (so the amount is capped at MAX_RESOURCE_AMOUNT) and 0 for a negative one. The exponent
 * must be an integer (upstream uses 1 and -2), computed as Go's Pow computes it.
 */
export function withConfidenceMultiplier(
  multiplier: number,
  exponent: number,
  confidenceIntervalMs: number,
  base: AmountEstimator,
): AmountEstimator {
  return (state) => {
    const factor = integerPowerLikeGo(
      1 + multiplier / confidence(state, confidenceIntervalMs),
      exponent,
    );
    return scaleResourceAmount(base(state), factor);
  };
}

/** At least `minimum`. */
export function withMinimum(
  minimum: number,
  base: AmountEstimator,
): AmountEstimator {
  return (state) => Math.max(base(state), minimum);
}
