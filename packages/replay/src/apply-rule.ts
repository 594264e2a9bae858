import type { ResourceAmounts } from '@tandem/estimators';
import type { StrategyRecommendation } from '@tandem/strategies';
import { UPDATER_DEFAULTS } from '@tandem/update-decisions';

/**
 * How a recommendation reaches the pod: `evict` as upstream's updater decides evictions,
 * `in-place` as a resize that applies every change of 10 % or more at once.
 */
export type ApplyMode = 'evict' | 'in-place';

export const APPLY_MODES: readonly ApplyMode[] = ['evict', 'in-place'];

/** What the updater knows of the pod when it decides. */
export interface PodState {
  readonly request: ResourceAmounts;
  /** When the pod was created (by the last eviction, or the replay's start). */
  readonly podStartMs: number;
  /** The container was OOM-killed less than `--evict-after-oom-threshold` after it started. */
  readonly quickOom: boolean;
}

/**
 * Upstream's update priority difference (`pkg/updater/priority/priority_processor.go`,
 * `GetUpdatePriority`): the sum over resources of |request − target| / request, with the
 * request at least 1.
 */
export function relativeChange(
  request: ResourceAmounts,
  target: ResourceAmounts,
): number {
  return (
    Math.abs(request.cpu - target.cpu) / Math.max(request.cpu, 1) +
    Math.abs(request.memory - target.memory) / Math.max(request.memory, 1)
  );
}

/**
 * Whether the pod gets `recommendation.target` now. Evict follows upstream's updater
 * (`update_priority_calculator.go`, `AddPod`): a request outside [lowerBound, upperBound]
 * or a quick OOM always; otherwise only a pod older than 12 h whose change reaches 10 %.
 * In-place applies any change that reaches 10 %. Eviction budgets and replica counts are
 * left out: one series is one pod.
 */
export function shouldApply(
  mode: ApplyMode,
  recommendation: StrategyRecommendation,
  pod: PodState,
  nowMs: number,
): boolean {
  const { target } = recommendation;
  if (target.cpu === pod.request.cpu && target.memory === pod.request.memory)
    return false;
  const change = relativeChange(pod.request, target);
  if (mode === 'in-place') return change >= UPDATER_DEFAULTS.podUpdateThreshold;
  if (pod.quickOom || outsideBounds(pod.request, recommendation)) return true;
  return (
    nowMs - pod.podStartMs >= UPDATER_DEFAULTS.podLifetimeThresholdMs &&
    change >= UPDATER_DEFAULTS.podUpdateThreshold
  );
}

function outsideBounds(
  request: ResourceAmounts,
  { lowerBound, upperBound }: StrategyRecommendation,
): boolean {
  return (
    request.cpu < lowerBound.cpu ||
    request.cpu > upperBound.cpu ||
    request.memory < lowerBound.memory ||
    request.memory > upperBound.memory
  );
}
