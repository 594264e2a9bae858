import {
  getUpdateMode,
  UpdateMode,
  type FeatureGates,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import type { ContainerRecommendations } from './controlled-recommendation.js';
import { UPDATER_DEFAULTS, withDefaults } from './defaults.js';
import { meetsEvictionRequirements } from './eviction-requirements.js';
import { hasLowerTarget } from './infeasible-resizes.js';
import { hadQuickOom, quickOomThresholdMs } from './quick-oom.js';
import {
  resourcePriority,
  type ResourcePriority,
} from './resource-priority.js';
import type { UpdaterPod } from './updater-pod.js';

export interface UpdateThresholds {
  /** `--pod-update-threshold`. */
  podUpdateThreshold: number;
  /** `--in-recommendation-bounds-eviction-lifetime-threshold`, in milliseconds. */
  podLifetimeThresholdMs: number;
  /** `--evict-after-oom-threshold`, in milliseconds. */
  evictAfterOomThresholdMs: number;
  /** Only `PerVPAConfig` matters here: it lets `evictAfterOOMSeconds` override the flag. */
  featureGates: FeatureGates;
}

export interface PodUpdateInput {
  pod: UpdaterPod;
  vpa: VerticalPodAutoscaler;
  /** The processed recommendation for this pod (`updaterRecommendation`). */
  recommendation: ContainerRecommendations | undefined;
  now: Date;
  /** InPlace mode: the recommendation of the pod's last infeasible resize, if remembered. */
  lastInfeasible?: ContainerRecommendations;
  thresholds?: Partial<UpdateThresholds>;
  /**
   * `assessPod`'s answer for this pod, when the caller keeps them (it depends only on the
   * pod's resources and annotations, the VPA and the LimitRanges); computed when absent.
   */
  assessment?: PodAssessment;
}

/** The part of a pod's update decision that does not depend on time or on its history. */
export interface PodAssessment {
  priority: ResourcePriority;
  meetsEvictionRequirements: boolean;
}

/**
 * The time-independent part of `decidePodUpdate`: the pod's update priority and whether it
 * meets the VPA's eviction requirements. Two pods of one VPA with the same resources and
 * annotations get the same answer, so a caller may reuse it. Throws `QuantityError`.
 */
export function assessPod(
  pod: UpdaterPod,
  vpa: VerticalPodAutoscaler,
  recommendation: ContainerRecommendations | undefined,
): PodAssessment {
  return {
    priority: resourcePriority(pod, vpa, recommendation),
    meetsEvictionRequirements: meetsEvictionRequirements(
      pod,
      vpa,
      recommendation,
    ),
  };
}

export interface PodUpdateDecision extends ResourcePriority {
  /** Whether the pod joins the updater's queue (order it with `compareUpdatePriority`). */
  update: boolean;
  quickOom: boolean;
  /** Why, in words, for logs and events. */
  reason: string;
}

/**
 * Whether the updater should update this pod, and with what priority (upstream's
 * `UpdatePriorityCalculator.AddPod` followed by its eviction-requirements admission):
 * 1. InPlace mode skips a pod whose last resize was infeasible until some target drops;
 * 2. a pod outside its recommended range, or with a quick OOM, is updated at once;
 * 3. any other pod needs `status.startTime`, an age of at least the lifetime threshold and
 *    a diff of at least the update threshold;
 * 4. a quick OOM alone does not update a pod whose resources would not change;
 * 5. `evictionRequirements` must be met.
 * Throws `QuantityError` for a malformed quantity.
 */
export function decidePodUpdate(input: PodUpdateInput): PodUpdateDecision {
  const { pod, vpa, recommendation, now } = input;
  const thresholds = withDefaults<UpdateThresholds>(
    {
      podUpdateThreshold: UPDATER_DEFAULTS.podUpdateThreshold,
      podLifetimeThresholdMs: UPDATER_DEFAULTS.podLifetimeThresholdMs,
      evictAfterOomThresholdMs: UPDATER_DEFAULTS.evictAfterOomThresholdMs,
      featureGates: {},
    },
    input.thresholds,
  );
  const assessment = input.assessment ?? assessPod(pod, vpa, recommendation);
  const { priority } = assessment;
  const oomThresholdMs = quickOomThresholdMs(
    vpa,
    thresholds.evictAfterOomThresholdMs,
    thresholds.featureGates,
  );
  const quickOom = hadQuickOom(pod, vpa, oomThresholdMs);
  const decided = (update: boolean, reason: string): PodUpdateDecision => ({
    ...priority,
    quickOom,
    update,
    reason,
  });

  if (
    getUpdateMode(vpa) === UpdateMode.InPlace &&
    input.lastInfeasible !== undefined &&
    !hasLowerTarget(input.lastInfeasible, recommendation)
  ) {
    return decided(
      false,
      'the last in-place resize was infeasible and no target is lower since',
    );
  }
  if (!priority.outsideRange && !quickOom) {
    const startTime = Date.parse(pod.status?.startTime ?? '');
    if (Number.isNaN(startTime)) {
      return decided(false, 'the pod has no status.startTime');
    }
    if (now.getTime() < startTime + thresholds.podLifetimeThresholdMs) {
      return decided(
        false,
        `requests are within the recommended range and the pod is younger than ${hours(thresholds.podLifetimeThresholdMs)}`,
      );
    }
    if (priority.diff < thresholds.podUpdateThreshold) {
      return decided(
        false,
        `resource diff ${round(priority.diff)} is below the update threshold ${thresholds.podUpdateThreshold}`,
      );
    }
  }
  if (quickOom && priority.diff === 0) {
    return decided(
      false,
      'a container was OOM-killed soon after starting, but its resources would not change',
    );
  }
  if (!assessment.meetsEvictionRequirements) {
    return decided(false, 'the VPA evictionRequirements are not met');
  }
  return decided(true, updateReason(priority, quickOom, oomThresholdMs));
}

function updateReason(
  priority: ResourcePriority,
  quickOom: boolean,
  oomThresholdMs: number,
): string {
  if (priority.outsideRange)
    return 'requests are outside the recommended range';
  if (quickOom) {
    return `a container was OOM-killed less than ${oomThresholdMs / 1000}s after starting`;
  }
  return `resource diff ${round(priority.diff)} on a long-running pod`;
}

function hours(ms: number): string {
  return `${ms / 3_600_000}h`;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
