import type { Span, Tracer } from '@opentelemetry/api';
import {
  describeError,
  type EventRecorder,
  type TokenBucket,
} from '@tandem/kube';
import { EVENT_REASON_ATTRIBUTE, inSpan, type Logger } from '@tandem/telemetry';
import {
  inPlaceUpdatedAnnotationPatch,
  podId,
  type InfeasibleResizes,
  type UpdateRestriction,
  type UpdaterPod,
} from '@tandem/update-decisions';
import {
  getUpdateMode,
  UpdateMode,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { UpdaterEventReason } from './event-reasons.js';
import type { PodActions } from './pod-actions.js';
import {
  recommendedChanges,
  tellNotUpdated,
  tellUpdated,
} from './pod-events.js';
import { guardedResizePatch, type MemoryRail } from './memory-rail.js';
import type { PodEvaluation } from './pod-evaluations.js';
import type { UpdaterMetrics } from './updater-metrics.js';

/** What one VPA's pod updates share within a cycle. */
export interface PodUpdateScope {
  /** The VPA as the decisions read it (Auto turned InPlaceOrRecreate by `--in-place-for-auto`). */
  vpa: VerticalPodAutoscaler;
  restriction: UpdateRestriction;
  /** The pod's evaluation against this VPA (kept across cycles, see `PodEvaluations`). */
  evaluate(pod: UpdaterPod): PodEvaluation;
  /** `vpa_size_log2` of the VPA's pod count. */
  sizeLabel: string;
  /** The update mode the VPA declares (metric label), whatever `vpa` acts as. */
  updateMode: string;
  /** Epoch ms by which the cycle must be done: no rate-limiter wait reaches past it. */
  deadlineMs: number;
}

export interface PodUpdateContext {
  actions: PodActions;
  recordEvent: EventRecorder;
  evictionLimiter: TokenBucket;
  inPlaceLimiter: TokenBucket;
  infeasible: InfeasibleResizes;
  dryRun: boolean;
  sleep(ms: number): Promise<void>;
  recover(kind: string, message: string, fields?: object): void;
  tracer: Tracer;
  logger: Logger;
  metrics: UpdaterMetrics;
  /** Keeps memory limits an in-place resize would shrink under the working set. */
  memoryRail: MemoryRail;
}

/**
 * `stop`: the rate limiter cannot give a token before the deadline, or the Lease is lost; act
 * no more this cycle.
 */
export type EvictionStep = 'evicted' | 'not-evicted' | 'stop';
export type ResizeStep = 'resized' | 'nothing-to-resize' | 'failed' | 'stop';

/**
 * Evicts the pod through the Eviction API after waiting for a token. A PodDisruptionBudget's
 * 429 is logged as normal; an accepted eviction is recorded in the restriction, counted and
 * told with events on the pod and the VPA.
 */
export async function evictPod(
  context: PodUpdateContext,
  scope: PodUpdateScope,
  pod: UpdaterPod,
  reason: string,
): Promise<EvictionStep> {
  const { vpa } = scope;
  const labels = {
    vpa_size_log2: scope.sizeLabel,
    update_mode: scope.updateMode,
    ...vpaLabels(vpa),
  };
  if (!(await waitForToken(context, context.evictionLimiter, scope))) {
    context.metrics.failedEvictionAttempts.inc({
      ...labels,
      reason: 'EvictionRateLimiterWaitFailed',
    });
    context.logger.warn(
      { pod: podId(pod), vpa: vpaKey(vpa) },
      'eviction rate limit reached; the next cycle goes on',
    );
    tellNotUpdated(
      context,
      scope,
      pod,
      UpdaterEventReason.UpdateRateLimited,
      'the eviction rate limit has no token before the cycle ends',
    );
    return 'stop';
  }
  return inSpan(
    context.tracer,
    'updater.evict',
    { pod: podId(pod), reason },
    async (span) => {
      const result = await context.actions.evict(pod);
      span.setAttribute('outcome', result.outcome);
      const fields = { pod: podId(pod), vpa: vpaKey(vpa), reason };
      switch (result.outcome) {
        case 'evicted':
          scope.restriction.recordEviction(pod);
          if (context.dryRun) {
            context.metrics.dryRunActions.inc({ action: 'evict' });
            context.logger.info(fields, 'dry run: would evict pod');
            return 'evicted';
          }
          context.metrics.evictedPods.inc(labels);
          context.logger.info(fields, 'pod evicted');
          span.setAttribute(
            EVENT_REASON_ATTRIBUTE,
            UpdaterEventReason.EvictedByVPA,
          );
          tellUpdated(context, pod, vpa, {
            podReason: UpdaterEventReason.EvictedByVPA,
            podMessage: `Pod was evicted by VPA Updater to apply resource recommendation: ${why(scope, pod, reason)}.`,
            vpaReason: UpdaterEventReason.EvictedPod,
            vpaMessage: `VPA Updater evicted Pod ${pod.metadata?.name} to apply resource recommendation: ${why(scope, pod, reason)}.`,
          });
          return 'evicted';
        case 'blocked-by-budget':
          context.metrics.evictionsBlockedByBudget.inc(vpaLabels(vpa));
          context.logger.info(
            { ...fields, answer: result.message },
            'eviction refused by a PodDisruptionBudget; retried next cycle',
          );
          span.setAttribute(
            EVENT_REASON_ATTRIBUTE,
            UpdaterEventReason.EvictionBlockedByBudget,
          );
          tellNotUpdated(
            context,
            scope,
            pod,
            UpdaterEventReason.EvictionBlockedByBudget,
            `a PodDisruptionBudget refused the eviction (${result.message}); retried next cycle`,
          );
          return 'not-evicted';
        case 'gone':
          context.recover('pod-gone', 'pod gone before its eviction', fields);
          return 'not-evicted';
        case 'failed':
          context.metrics.failedEvictionAttempts.inc({
            ...labels,
            reason: 'EvictionError',
          });
          context.logger.warn(
            { ...fields, answer: result.message },
            'eviction failed',
          );
          span.setAttribute(
            EVENT_REASON_ATTRIBUTE,
            UpdaterEventReason.EvictionFailed,
          );
          tellNotUpdated(
            context,
            scope,
            pod,
            UpdaterEventReason.EvictionFailed,
            `the eviction failed: ${result.message}`,
            'Warning',
          );
          return 'not-evicted';
        case 'not-leading':
          return 'stop';
      }
    },
  );
}

/**
 * Patches the pod's `resize` subresource with the recommendation, after waiting for a token,
 * then marks it `vpaInPlaceUpdated`. A resize the node can never hold is remembered for
 * InPlace mode; `failed` lets InPlaceOrRecreate fall back to eviction.
 */
export async function resizePod(
  context: PodUpdateContext,
  scope: PodUpdateScope,
  pod: UpdaterPod,
  reason: string,
): Promise<ResizeStep> {
  const { vpa } = scope;
  const labels = { vpa_size_log2: scope.sizeLabel, ...vpaLabels(vpa) };
  const fields = { pod: podId(pod), vpa: vpaKey(vpa), reason };
  const patch = await guardedResizePatch(
    context,
    scope,
    pod,
    scope.evaluate(pod),
  );
  if (patch.length === 0) {
    context.logger.debug(fields, 'nothing to resize');
    return 'nothing-to-resize';
  }
  if (!(await waitForToken(context, context.inPlaceLimiter, scope))) {
    context.metrics.failedInPlaceUpdateAttempts.inc({
      ...labels,
      reason: 'InPlaceUpdateRateLimiterWaitFailed',
    });
    context.logger.warn(
      fields,
      'resize rate limit reached; the next cycle goes on',
    );
    tellNotUpdated(
      context,
      scope,
      pod,
      UpdaterEventReason.UpdateRateLimited,
      'the in-place resize rate limit has no token before the cycle ends',
    );
    return 'stop';
  }
  return inSpan(
    context.tracer,
    'updater.resize',
    { pod: podId(pod), reason },
    async (span) => {
      const result = await context.actions.resize(pod, patch);
      span.setAttribute('outcome', result.outcome);
      switch (result.outcome) {
        case 'resized':
          scope.restriction.recordInPlace(pod);
          if (context.dryRun) {
            context.metrics.dryRunActions.inc({ action: 'resize' });
            context.logger.info(
              { ...fields, patch },
              'dry run: would resize pod in place',
            );
            return 'resized';
          }
          context.metrics.inPlaceUpdatedPods.inc(labels);
          context.logger.info({ ...fields, patch }, 'pod resized in place');
          await context.actions
            .annotate(pod, inPlaceUpdatedAnnotationPatch(pod))
            .catch((error: unknown) =>
              context.recover(
                'annotate',
                `pod resized, but not annotated: ${describeError(error)}`,
                fields,
              ),
            );
          span.setAttribute(
            EVENT_REASON_ATTRIBUTE,
            UpdaterEventReason.InPlaceResizedByVPA,
          );
          tellUpdated(context, pod, vpa, {
            podReason: UpdaterEventReason.InPlaceResizedByVPA,
            podMessage: `Pod was resized in place by VPA Updater: ${why(scope, pod, reason)}.`,
            vpaReason: UpdaterEventReason.InPlaceResizedPod,
            vpaMessage: `VPA Updater resized Pod ${pod.metadata?.name} in place: ${why(scope, pod, reason)}.`,
          });
          return 'resized';
        case 'infeasible':
          context.metrics.failedInPlaceUpdateAttempts.inc({
            ...labels,
            reason: 'InPlaceUpdateInfeasible',
          });
          if (
            getUpdateMode(vpa) === UpdateMode.InPlace &&
            vpa.status?.recommendation !== undefined
          )
            context.infeasible.record(
              pod.metadata?.uid ?? '',
              vpa.status.recommendation,
            );
          context.logger.warn(
            { ...fields, answer: result.message },
            'in-place resize refused: the node cannot hold it',
          );
          resizeFailed(
            context,
            scope,
            pod,
            span,
            `the node cannot hold the resize (${result.message})`,
          );
          return 'failed';
        case 'gone':
          context.recover('pod-gone', 'pod gone before its resize', fields);
          return 'failed';
        case 'failed':
          context.metrics.failedInPlaceUpdateAttempts.inc({
            ...labels,
            reason: 'InPlaceUpdateError',
          });
          context.logger.warn(
            { ...fields, answer: result.message },
            'in-place resize failed',
          );
          resizeFailed(
            context,
            scope,
            pod,
            span,
            `the resize failed (${result.message})`,
          );
          return 'failed';
        case 'not-leading':
          return 'stop';
      }
    },
  );
}

/** Takes a token, waiting for it when needed; false when it would come after the deadline. */
export async function waitForToken(
  context: PodUpdateContext,
  limiter: TokenBucket,
  scope: PodUpdateScope,
): Promise<boolean> {
  const waitMs = limiter.reserve(scope.deadlineMs - Date.now());
  if (waitMs === undefined) return false;
  if (waitMs > 0) await context.sleep(waitMs);
  return true;
}

/** The decision's reason with the numbers it acts on: `reason (app: cpu 100m -> 250m)`. */
function why(scope: PodUpdateScope, pod: UpdaterPod, reason: string): string {
  const changes = recommendedChanges(scope, pod);
  return changes === '' ? reason : `${reason} (${changes})`;
}

/**
 * A refused resize: a Warning on the pod, and on the span. InPlaceOrRecreate then falls
 * back to eviction, so the event says which comes next.
 */
function resizeFailed(
  context: PodUpdateContext,
  scope: PodUpdateScope,
  pod: UpdaterPod,
  span: Span,
  what: string,
): void {
  span.setAttribute(
    EVENT_REASON_ATTRIBUTE,
    UpdaterEventReason.InPlaceResizeFailed,
  );
  const next =
    getUpdateMode(scope.vpa) === UpdateMode.InPlace
      ? 'InPlace mode never evicts'
      : 'eviction is tried next if the replica group allows';
  tellNotUpdated(
    context,
    scope,
    pod,
    UpdaterEventReason.InPlaceResizeFailed,
    `${what}; ${next}`,
    'Warning',
  );
}

export function vpaKey(vpa: VerticalPodAutoscaler): string {
  return `${vpa.metadata?.namespace ?? ''}/${vpa.metadata?.name ?? ''}`;
}

/** The per-VPA labels of upstream's updater counters. */
export function vpaLabels(vpa: VerticalPodAutoscaler) {
  return {
    vpa_name: vpa.metadata?.name ?? '',
    vpa_namespace: vpa.metadata?.namespace ?? '',
  };
}
