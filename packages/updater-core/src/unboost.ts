import { describeError } from '@tandem/kube';
import { EVENT_REASON_ATTRIBUTE, inSpan } from '@tandem/telemetry';
import {
  guardMemoryShrink,
  podId,
  type UpdaterPod,
} from '@tandem/update-decisions';
import type { LimitRange } from '@tandem/vpa-api';
import { UpdaterEventReason } from './event-reasons.js';
import { guardedResizePatch } from './memory-rail.js';
import { podSubject, tellUpdated } from './pod-events.js';
import {
  vpaKey,
  vpaLabels,
  waitForToken,
  type PodUpdateContext,
  type PodUpdateScope,
} from './pod-updates.js';
import { unboostPlan } from './unboost-plan.js';

export interface UnboostTally {
  resized: number;
  /** The rate limiter ran out before the deadline, or the Lease was lost. */
  stopped: boolean;
}

/**
 * Ends the CPU startup boosts that are over, in place (upstream `RunOnce`'s unboost loop,
 * `pkg/updater/logic/updater.go`): for each pod with an expired boost that its group can
 * afford to resize (`canUnboost`), a `resize` patch back to the recommendation or the
 * recorded values, then a plain patch removing the boost annotations. An unboost that
 * cannot be made or is refused counts `UnboostError` and is told with a Warning event; the
 * pod is never evicted for it, and the next cycle tries again.
 */
export async function unboostPods(
  context: PodUpdateContext,
  scope: PodUpdateScope,
  pods: readonly UpdaterPod[],
  limitRanges: readonly LimitRange[],
  now: Date,
): Promise<UnboostTally> {
  const tally: UnboostTally = { resized: 0, stopped: false };
  for (const pod of pods) {
    const step = await unboostPod(context, scope, pod, limitRanges, now);
    if (step === 'resized') tally.resized += 1;
    if (step === 'stop') return { ...tally, stopped: true };
  }
  return tally;
}

type UnboostStep = 'resized' | 'not-resized' | 'stop';

async function unboostPod(
  context: PodUpdateContext,
  scope: PodUpdateScope,
  pod: UpdaterPod,
  limitRanges: readonly LimitRange[],
  now: Date,
): Promise<UnboostStep> {
  const fields = { pod: podId(pod), vpa: vpaKey(scope.vpa) };
  let plan;
  try {
    plan = unboostPlan(pod, scope.vpa, limitRanges, now);
  } catch (error) {
    failed(
      context,
      scope,
      pod,
      [],
      `cannot compute it: ${describeError(error)}`,
    );
    return 'not-resized';
  }
  if (plan === undefined) return 'not-resized';
  if (!scope.restriction.canUnboost(pod)) {
    context.logger.debug(
      { ...fields, containers: plan.containers },
      'startup boost over, unboost waits: the replica group cannot afford a resize now',
    );
    return 'not-resized';
  }
  if ('problem' in plan) {
    failed(context, scope, pod, plan.containers, plan.problem);
    return 'not-resized';
  }
  const resize = plan.resize;
  const patch = await guardedResizePatch(context, scope, pod, {
    resizePatch: () => resize,
    lowersMemoryLimit: () =>
      guardMemoryShrink(pod, resize, undefined, 0).kept.length > 0,
  });
  if (!(await waitForToken(context, context.inPlaceLimiter, scope))) {
    context.logger.warn(
      fields,
      'resize rate limit reached before an unboost; the next cycle goes on',
    );
    return 'stop';
  }
  return inSpan(
    context.tracer,
    'updater.unboost',
    { pod: podId(pod), containers: plan.containers.join(',') },
    async (span) => {
      const result = await context.actions.resize(pod, patch);
      span.setAttribute('outcome', result.outcome);
      if (result.outcome === 'not-leading') return 'stop';
      if (result.outcome !== 'resized') {
        failed(
          context,
          scope,
          pod,
          plan.containers,
          `the resize was refused (${result.outcome}: ${result.message ?? 'no message'})`,
        );
        return 'not-resized';
      }
      scope.restriction.recordInPlace(pod);
      const ended = plan.containers.join(', ');
      if (context.dryRun) {
        context.metrics.dryRunActions.inc({ action: 'unboost' });
        context.logger.info(
          { ...fields, patch },
          'dry run: would end the CPU startup boost',
        );
        return 'resized';
      }
      context.metrics.inPlaceUpdatedPods.inc({
        vpa_size_log2: scope.sizeLabel,
        ...vpaLabels(scope.vpa),
      });
      context.logger.info(
        { ...fields, containers: plan.containers, patch },
        'CPU startup boost ended in place',
      );
      await context.actions
        .annotate(pod, plan.annotations)
        .catch((error: unknown) =>
          context.recover(
            'annotate',
            `pod unboosted, but its boost annotations not removed: ${describeError(error)}`,
            fields,
          ),
        );
      span.setAttribute(
        EVENT_REASON_ATTRIBUTE,
        UpdaterEventReason.InPlaceResizedByVPA,
      );
      tellUpdated(context, pod, scope.vpa, {
        podReason: UpdaterEventReason.InPlaceResizedByVPA,
        podMessage: `Pod was resized in place by VPA Updater: the CPU startup boost of ${ended} ended.`,
        vpaReason: UpdaterEventReason.InPlaceResizedPod,
        vpaMessage: `VPA Updater resized Pod ${pod.metadata?.name} in place: the CPU startup boost of ${ended} ended.`,
      });
      return 'resized';
    },
  );
}

/** Upstream's `UnboostError`, a log line and a Warning on the pod saying why. */
function failed(
  context: PodUpdateContext,
  scope: PodUpdateScope,
  pod: UpdaterPod,
  containers: readonly string[],
  why: string,
): void {
  context.metrics.failedInPlaceUpdateAttempts.inc({
    vpa_size_log2: scope.sizeLabel,
    reason: 'UnboostError',
    ...vpaLabels(scope.vpa),
  });
  const which = containers.length > 0 ? ` of ${containers.join(', ')}` : '';
  const message = `The CPU startup boost${which} was not ended: ${why}; retried next cycle, the pod is not evicted for it.`;
  context.logger.warn(
    { pod: podId(pod), vpa: vpaKey(scope.vpa), why },
    'unboost failed',
  );
  if (!context.dryRun)
    context.recordEvent(
      podSubject(pod),
      'Warning',
      UpdaterEventReason.UnboostFailed,
      message,
    );
}
