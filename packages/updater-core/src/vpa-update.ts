import type { ControllerReference } from '@tandem/admission';
import { describeError } from '@tandem/kube';
import {
  decideInPlaceUpdate,
  decidePodUpdate,
  orderForUpdate,
  replicaOwnerKey,
  updaterStrategy,
  UpdateRestriction,
  podId,
  type PodGroup,
  type PodUpdateDecision,
  type ReplicaOwner,
  type UpdateRestrictionOptions,
  type UpdateThresholds,
  type UpdaterPod,
} from '@tandem/update-decisions';
import {
  boostedContainerNames,
  FeatureGate,
  getUpdateMode,
  hasStartupBoost,
  UpdateMode,
  type FeatureGates,
  type LimitRange,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import {
  evictPod,
  resizePod,
  vpaKey,
  type PodUpdateContext,
  type PodUpdateScope,
} from './pod-updates.js';
import { UpdaterEventReason } from './event-reasons.js';
import { keptReplicaGrouping } from './kept-replica-grouping.js';
import { tellNotUpdated } from './pod-events.js';
import type { PodEvaluations } from './pod-evaluations.js';
import { unboostPods } from './unboost.js';
import { vpaSizeLog2 } from './updater-metrics.js';

export interface VpaUpdateSettings {
  featureGates: FeatureGates;
  thresholds: Partial<UpdateThresholds>;
  restriction: Partial<UpdateRestrictionOptions>;
  /** `--in-place-for-auto`: mode Auto resizes in place first, as InPlaceOrRecreate. */
  inPlaceForAuto: boolean;
}

export interface VpaUpdateContext extends PodUpdateContext {
  settings: VpaUpdateSettings;
  limitRanges(namespace: string): readonly LimitRange[];
  /** Pod evaluations kept across cycles; the cycle calls `endCycle`. */
  evaluations: PodEvaluations;
  /**
   * How many replicas the owner should have; undefined when unknown (the group is left
   * alone). A scalable owner's count is read afresh each cycle: a stale low count after a
   * scale-up would let most of the new pods go at once.
   */
  configuredReplicas(owner: ReplicaOwner): Promise<number | undefined>;
}

/** What one VPA's pass did, for the cycle's gauges and summary. */
export interface VpaUpdateTally {
  sizeLabel: string;
  updateMode: string;
  controlled: number;
  evictable: number;
  evicted: number;
  inPlaceUpdatable: number;
  resized: number;
  /** The rate limiter ran out before the deadline: the cycle acts no more. */
  stopped: boolean;
}

interface Candidate {
  pod: UpdaterPod;
  decision: PodUpdateDecision;
}

/**
 * One VPA's pass over its live pods (in groups of one top-most controller): upstream's
 * priority decides which pods to update and in what order; then pods are evicted
 * (Recreate, Auto) or resized in place with eviction as the fallback (InPlaceOrRecreate;
 * InPlace never evicts), as far as the replica groups' budgets and the rate limiters allow.
 */
export async function updateVpa(
  context: VpaUpdateContext,
  declared: VerticalPodAutoscaler,
  groups: readonly PodGroup<ControllerReference>[],
  now: Date,
  deadlineMs: number,
): Promise<VpaUpdateTally> {
  const { settings } = context;
  // Most VPAs have pods of one owner: their list is taken as it is.
  const only = groups.length === 1 ? groups[0] : undefined;
  const pods = only?.pods ?? groups.flatMap((group) => group.pods);
  const vpa = effectiveVpa(declared, settings.inPlaceForAuto);
  const tally: VpaUpdateTally = {
    sizeLabel: vpaSizeLog2(pods.length),
    updateMode: getUpdateMode(declared),
    controlled: pods.length,
    evictable: 0,
    evicted: 0,
    inPlaceUpdatable: 0,
    resized: 0,
    stopped: false,
  };
  const unboosting =
    settings.featureGates[FeatureGate.CPUStartupBoost] === true &&
    hasStartupBoost(vpa);
  const namespace = vpa.metadata?.namespace ?? '';
  const { grouping, owners } = keptReplicaGrouping(groups);
  const configured = await replicaCounts(context, owners);
  const limitRanges = context.limitRanges(namespace);
  const scope: PodUpdateScope = {
    vpa,
    restriction: UpdateRestriction.create({
      vpa,
      pods,
      now,
      configuredReplicas: (owner) => configured.get(replicaOwnerKey(owner)),
      grouping,
      options: settings.restriction,
      unboosting,
    }),
    evaluate: (pod) => context.evaluations.evaluate(pod, vpa, limitRanges),
    sizeLabel: tally.sizeLabel,
    updateMode: tally.updateMode,
    deadlineMs,
  };
  let updatable = pods;
  if (unboosting) {
    // Upstream: a pod still carrying a boost annotation waits for its unboost.
    const unboosted = await unboostPods(context, scope, pods, limitRanges, now);
    tally.resized += unboosted.resized;
    if (unboosted.stopped) return { ...tally, stopped: true };
    updatable = pods.filter(
      (pod) => boostedContainerNames(pod.metadata?.annotations).length === 0,
    );
  }
  const strategy = updaterStrategy(vpa, settings.featureGates);
  if (strategy === 'none') {
    if (getUpdateMode(vpa) === UpdateMode.InPlace)
      context.logger.warn(
        { vpa: vpaKey(vpa) },
        'update mode InPlace needs the InPlace feature gate; VPA skipped',
      );
    return tally;
  }
  const candidates = orderForUpdate(
    updatable.flatMap((pod) => candidateOf(context, scope, pod, now)),
    (candidate) => candidate.decision,
  );

  if (strategy === 'evict') {
    tally.evictable = candidates.filter(({ pod }) =>
      scope.restriction.canEvict(pod),
    ).length;
    for (const { pod, decision } of candidates) {
      if (!mayEvict(context, scope, pod)) continue;
      const step = await evictPod(context, scope, pod, decision.reason);
      if (step === 'evicted') tally.evicted += 1;
      if (step === 'stop') return { ...tally, stopped: true };
    }
    return tally;
  }

  const fallbacks: { pod: UpdaterPod; reason: string }[] = [];
  for (const { pod, decision } of candidates) {
    const uid = pod.metadata?.uid ?? '';
    const inPlace = decideInPlaceUpdate({
      pod,
      vpa,
      restriction: scope.restriction,
      featureGates: settings.featureGates,
      lastInfeasible: context.infeasible.lastAttempt(uid),
    });
    if (inPlace.recordInfeasible && vpa.status?.recommendation !== undefined)
      context.infeasible.record(uid, vpa.status.recommendation);
    const fields = { pod: podId(pod), vpa: vpaKey(vpa), why: inPlace.reason };
    switch (inPlace.action) {
      case 'resize-in-place': {
        tally.inPlaceUpdatable += 1;
        const step = await resizePod(context, scope, pod, decision.reason);
        if (step === 'resized') tally.resized += 1;
        if (step === 'stop') return { ...tally, stopped: true };
        if (step === 'failed' && strategy === 'resize-in-place-or-evict')
          fallbacks.push({
            pod,
            reason: `${decision.reason}; the in-place resize failed`,
          });
        break;
      }
      case 'fall-back-to-eviction':
        fallbacks.push({
          pod,
          reason: `${decision.reason}; ${inPlace.reason}`,
        });
        break;
      case 'skip':
        context.logger.debug(fields, 'pod skipped');
        tellNotUpdated(
          context,
          scope,
          pod,
          UpdaterEventReason.UpdateSkipped,
          inPlace.reason,
        );
        break;
      case 'wait':
        context.logger.debug(fields, 'pod waits');
        tellNotUpdated(
          context,
          scope,
          pod,
          UpdaterEventReason.UpdateWaiting,
          inPlace.reason,
        );
        break;
    }
  }
  for (const { pod, reason } of fallbacks) {
    if (!mayEvict(context, scope, pod)) continue;
    tally.evictable += 1;
    const step = await evictPod(context, scope, pod, reason);
    if (step === 'evicted') tally.evicted += 1;
    if (step === 'stop') return { ...tally, stopped: true };
  }
  return tally;
}

/** Whether the pod's replica group can lose it now; when not, the pod is told why. */
function mayEvict(
  context: VpaUpdateContext,
  scope: PodUpdateScope,
  pod: UpdaterPod,
): boolean {
  const refused = scope.restriction.whyNotEvictable(pod);
  if (refused === undefined) return true;
  tellNotUpdated(
    context,
    scope,
    pod,
    UpdaterEventReason.UpdateWaiting,
    `not evicted: ${refused}`,
  );
  return false;
}

/** The pod with its update decision when it should be updated; a bad quantity skips it. */
function candidateOf(
  context: VpaUpdateContext,
  scope: PodUpdateScope,
  pod: UpdaterPod,
  now: Date,
): Candidate[] {
  try {
    const evaluation = scope.evaluate(pod);
    const decision = decidePodUpdate({
      pod,
      vpa: scope.vpa,
      recommendation: evaluation.recommendation,
      assessment: evaluation.assessment,
      now,
      lastInfeasible: context.infeasible.lastAttempt(pod.metadata?.uid ?? ''),
      thresholds: context.settings.thresholds,
    });
    if (!decision.update) {
      if (
        getUpdateMode(scope.vpa) === UpdateMode.InPlace &&
        context.infeasible.lastAttempt(pod.metadata?.uid ?? '') !== undefined
      )
        context.metrics.inPlaceInfeasibleSkipPods.inc({
          vpa_size_log2: scope.sizeLabel,
        });
      context.logger.debug(
        { pod: podId(pod), vpa: vpaKey(scope.vpa), why: decision.reason },
        'pod left as it is',
      );
      return [];
    }
    return [{ pod, decision }];
  } catch (error) {
    context.recover(
      'pod-decision',
      `pod skipped: ${(error as Error).message}`,
      { pod: podId(pod), vpa: vpaKey(scope.vpa) },
    );
    return [];
  }
}

/**
 * The configured replicas of every owner of the VPA's pods, read once per VPA pass. An
 * owner whose count cannot be read (a `/scale` GET refused) leaves its group alone, as
 * upstream's `GetCreatorMaps` skips a group whose `getReplicaCount` errs; the other groups
 * go on.
 */
async function replicaCounts(
  context: VpaUpdateContext,
  owners: readonly ReplicaOwner[],
): Promise<Map<string, number | undefined>> {
  const counts = new Map<string, number | undefined>();
  await Promise.all(
    owners.map(async (owner) => {
      const key = replicaOwnerKey(owner);
      try {
        counts.set(key, await context.configuredReplicas(owner));
      } catch (error) {
        context.recover(
          'replica-count',
          `replica group left alone, its configured replicas cannot be read: ${describeError(error)}`,
          { owner: key },
        );
      }
    }),
  );
  return counts;
}

/** The VPA the decisions read: with `--in-place-for-auto`, mode Auto acts as InPlaceOrRecreate. */
function effectiveVpa(
  vpa: VerticalPodAutoscaler,
  inPlaceForAuto: boolean,
): VerticalPodAutoscaler {
  if (!inPlaceForAuto || getUpdateMode(vpa) !== UpdateMode.Auto) return vpa;
  return {
    ...vpa,
    spec: {
      ...vpa.spec,
      updatePolicy: {
        ...vpa.spec.updatePolicy,
        updateMode: UpdateMode.InPlaceOrRecreate,
      },
    },
  };
}
