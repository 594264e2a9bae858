import {
  DEFAULT_RECOMMENDER_CONFIG,
  podMinimumShare,
  scaleResourceAmount,
  type ResourceAmounts,
} from '@tandem/estimators';
import type { StrategyRecommendation } from './strategy.js';

/**
 * Upstream's per-pod minimum for a one-container pod (25 m, 250 MiB): every strategy floors
 * at it, so that none wins on containers too small for a kubelet to run.
 */
export const CONTAINER_MINIMUM: ResourceAmounts = podMinimumShare(
  DEFAULT_RECOMMENDER_CONFIG,
  1,
);

/** The updater's smallest in-range change worth applying (`--pod-update-threshold`). */
const UPDATE_THRESHOLD = 0.1;

/**
 * A target with bounds for strategies that have no bounds of their own: 10 % either side,
 * so that upstream's updater, which evicts when a request leaves [lowerBound, upperBound],
 * acts on them as its in-range rule acts on upstream's (a change of 10 % or more).
 */
export function withUpdateBand(
  target: ResourceAmounts,
): StrategyRecommendation {
  return {
    target,
    lowerBound: scaleAmounts(target, 1 - UPDATE_THRESHOLD),
    upperBound: scaleAmounts(target, 1 + UPDATE_THRESHOLD),
  };
}

export function scaleAmounts(
  amounts: ResourceAmounts,
  factor: number,
): ResourceAmounts {
  return {
    cpu: scaleResourceAmount(amounts.cpu, factor),
    memory: scaleResourceAmount(amounts.memory, factor),
  };
}

/** `amount` plus `margin` of it, truncated as upstream's margin estimator truncates. */
export function plusMargin(amount: number, margin: number): number {
  return amount + scaleResourceAmount(amount, margin);
}
