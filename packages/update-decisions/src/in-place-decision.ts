import {
  getUpdateMode,
  type FeatureGates,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import {
  applicableRecommendation,
  type ContainerRecommendations,
} from './controlled-recommendation.js';
import { hasLowerTarget } from './infeasible-resizes.js';
import { resizeFallback } from './resize-fallback.js';
import { readResizeState } from './resize-state.js';
import type { UpdateRestriction } from './update-restriction.js';
import { updaterStrategy } from './update-mode.js';
import { isPending, type UpdaterPod } from './updater-pod.js';

/** What to do with a pod the updater wants to change, in the in-place modes. */
export type InPlaceAction =
  /** Patch the pod's `resize` subresource now (`inPlaceResizePatch`), then `recordInPlace`. */
  | 'resize-in-place'
  /** Nothing this cycle; ask again next cycle. */
  | 'wait'
  /** InPlaceOrRecreate (or a mode that never resizes): evict, if `canEvict` allows. */
  | 'fall-back-to-eviction'
  /** Leave the pod alone until something changes (mode, gate, or a lower target). */
  | 'skip';

export interface InPlaceDecision {
  action: InPlaceAction;
  reason: string;
  /**
   * InPlace mode: remember the VPA's current recommendation as infeasible for this pod's UID
   * (`InfeasibleResizes.record`) before acting, so it is not retried until a target drops.
   */
  recordInfeasible: boolean;
}

export interface InPlaceDecisionInput {
  pod: UpdaterPod;
  vpa: VerticalPodAutoscaler;
  /** This cycle's restriction for the VPA; it carries the cycle's time. */
  restriction: UpdateRestriction;
  /** `InPlace` must be on for mode InPlace to act. */
  featureGates?: FeatureGates;
  /** InPlace mode: the recommendation of the pod's last infeasible resize, if remembered. */
  lastInfeasible?: ContainerRecommendations;
}

/**
 * The in-place state machine (upstream `CanInPlaceUpdate` with the updater loop's reading of
 * its answer), for a pod `decidePodUpdate` has selected:
 *
 * - no resize under way: resize when the group can afford it, else wait;
 * - InPlaceOrRecreate with a resize under way: fall back to eviction when it is Infeasible,
 *   Error or unknown, Deferred for more than 5m, or in progress for more than 1h, and the
 *   group can lose the pod; wait otherwise;
 * - InPlace: never evicts. A resize found Infeasible is retried once with the current
 *   recommendation, which is remembered; while no target drops below it the pod is skipped.
 *   Deferred, in progress or Error: wait (Error is taken as transient).
 *
 * Pods that are Pending, outside a replica group, or whose VPA has no recommendation wait.
 */
export function decideInPlaceUpdate(
  input: InPlaceDecisionInput,
): InPlaceDecision {
  const { pod, vpa, restriction } = input;
  const strategy = updaterStrategy(vpa, input.featureGates);
  if (strategy === 'none') {
    return skip(
      `update mode ${getUpdateMode(vpa)} does not resize running pods`,
    );
  }
  if (strategy === 'evict') {
    return decision(
      'fall-back-to-eviction',
      `update mode ${getUpdateMode(vpa)} evicts`,
    );
  }
  if (!restriction.isGrouped(pod)) {
    return wait('the pod is not in a replica group the updater may disrupt');
  }
  if (isPending(pod)) return wait('the pod is Pending');
  const recommendation = vpa.status?.recommendation;
  if (recommendation === undefined)
    return wait('the VPA has no recommendation yet');
  const inPlaceOnly = strategy === 'resize-in-place-only';
  // A lower target for a resource the pod sets at pod level would resize nothing new.
  const applicable = applicableRecommendation(pod, vpa).status?.recommendation;
  if (
    inPlaceOnly &&
    input.lastInfeasible !== undefined &&
    !hasLowerTarget(input.lastInfeasible, applicable)
  ) {
    return skip('the last resize was infeasible and no target is lower since');
  }

  const state = readResizeState(pod);
  if (state.status === 'None') {
    return restriction.canResizeInPlace(pod)
      ? decision('resize-in-place', 'the replica group can afford a resize')
      : wait('the replica group cannot afford another disruption now');
  }
  if (inPlaceOnly) {
    return state.status === 'Infeasible'
      ? {
          action: 'resize-in-place',
          reason:
            'the resize was infeasible; retrying once with the current recommendation',
          recordInfeasible: true,
        }
      : wait(
          `a resize is under way (${state.status}); InPlace mode never evicts`,
        );
  }
  const fallback = resizeFallback(state, restriction.cycleTime);
  if (fallback.action === 'wait') return wait(fallback.reason);
  const refused = restriction.whyNotEvictable(pod);
  return refused === undefined
    ? decision('fall-back-to-eviction', fallback.reason)
    : wait(`${fallback.reason}, but it is not evicted: ${refused}`);
}

function decision(action: InPlaceAction, reason: string): InPlaceDecision {
  return { action, reason, recordInfeasible: false };
}

function wait(reason: string): InPlaceDecision {
  return decision('wait', reason);
}

function skip(reason: string): InPlaceDecision {
  return decision('skip', reason);
}
