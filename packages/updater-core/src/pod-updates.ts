import type { Tracer } from '@opentelemetry/api';
import type { EventRecorder, EventSubject, TokenBucket } from '@tandem/kube';
import { describeError } from '@tandem/kube';
import { inSpan, type Logger } from '@tandem/telemetry';
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
  VPA_API_VERSION,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import type { PodActions } from './pod-actions.js';
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
          await tell(context, pod, vpa, {
            podReason: 'EvictedByVPA',
            podMessage: `Pod was evicted by VPA Updater to apply resource recommendation: ${reason}.`,
            vpaReason: 'EvictedPod',
            vpaMessage: `VPA Updater evicted Pod ${pod.metadata?.name} to apply resource recommendation: ${reason}.`,
          });
          return 'evicted';
        case 'blocked-by-budget':
          context.metrics.evictionsBlockedByBudget.inc(vpaLabels(vpa));
          context.logger.info(
            { ...fields, answer: result.message },
            'eviction refused by a PodDisruptionBudget; retried next cycle',
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
  const patch = scope.evaluate(pod).resizePatch();
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
          await tell(context, pod, vpa, {
            podReason: 'InPlaceResizedByVPA',
            podMessage: `Pod was resized in place by VPA Updater: ${reason}.`,
            vpaReason: 'InPlaceResizedPod',
            vpaMessage: `VPA Updater resized Pod ${pod.metadata?.name} in place: ${reason}.`,
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
          return 'failed';
        case 'not-leading':
          return 'stop';
      }
    },
  );
}

/** Takes a token, waiting for it when needed; false when it would come after the deadline. */
async function waitForToken(
  context: PodUpdateContext,
  limiter: TokenBucket,
  scope: PodUpdateScope,
): Promise<boolean> {
  const waitMs = limiter.reserve(scope.deadlineMs - Date.now());
  if (waitMs === undefined) return false;
  if (waitMs > 0) await context.sleep(waitMs);
  return true;
}

/** Normal events on the pod and on its VPA; a failed write is logged, never fatal. */
async function tell(
  context: PodUpdateContext,
  pod: UpdaterPod,
  vpa: VerticalPodAutoscaler,
  text: {
    podReason: string;
    podMessage: string;
    vpaReason: string;
    vpaMessage: string;
  },
): Promise<void> {
  const podSubject: EventSubject = {
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid,
  };
  const vpaSubject: EventSubject = {
    apiVersion: VPA_API_VERSION,
    kind: 'VerticalPodAutoscaler',
    namespace: vpa.metadata?.namespace ?? '',
    name: vpa.metadata?.name ?? '',
    uid: vpa.metadata?.uid,
  };
  const writes = [
    context.recordEvent(podSubject, 'Normal', text.podReason, text.podMessage),
    context.recordEvent(vpaSubject, 'Normal', text.vpaReason, text.vpaMessage),
  ];
  for (const outcome of await Promise.allSettled(writes)) {
    if (outcome.status === 'rejected')
      context.recover(
        'event',
        `event not written: ${describeError(outcome.reason)}`,
        { pod: podId(pod) },
      );
  }
}

export function vpaKey(vpa: VerticalPodAutoscaler): string {
  return `${vpa.metadata?.namespace ?? ''}/${vpa.metadata?.name ?? ''}`;
}

function vpaLabels(vpa: VerticalPodAutoscaler) {
  return {
    vpa_name: vpa.metadata?.name ?? '',
    vpa_namespace: vpa.metadata?.namespace ?? '',
  };
}
