import { trace } from '@opentelemetry/api';
import type { EventSubject, EventType } from '@tandem/kube';
import { EVENT_REASON_ATTRIBUTE } from '@tandem/telemetry';
import { podId, type UpdaterPod } from '@tandem/update-decisions';
import { vpaReference, type VerticalPodAutoscaler } from '@tandem/vpa-api';
import type { UpdaterEventReason } from './event-reasons.js';
import type { PodUpdateContext, PodUpdateScope } from './pod-updates.js';

/** The events of one update: upstream's pair, on the pod and on its VPA. */
export interface UpdateEvents {
  podReason: UpdaterEventReason;
  podMessage: string;
  vpaReason: UpdaterEventReason;
  vpaMessage: string;
}

/**
 * What the pod's recommendation changes, each request against its target, as in
 * `app: cpu 100m -> 250m, memory 128Mi -> 200Mi`; empty when the pod has none. Worked out
 * once per pod evaluation: the replicas that share one share the text.
 */
export function recommendedChanges(
  scope: PodUpdateScope,
  pod: UpdaterPod,
): string {
  return scope.evaluate(pod).recommendedChanges();
}

/** Normal events on the pod and on its VPA once the pod is updated (not in a dry run). */
export function tellUpdated(
  context: PodUpdateContext,
  pod: UpdaterPod,
  vpa: VerticalPodAutoscaler,
  events: UpdateEvents,
): void {
  context.recordEvent(
    podSubject(pod),
    'Normal',
    events.podReason,
    events.podMessage,
  );
  context.recordEvent(
    vpaReference(vpa),
    'Normal',
    events.vpaReason,
    events.vpaMessage,
  );
}

/**
 * Why a pod the recommendation says should change was left as it is this cycle: an event
 * on the pod, where `kubectl describe pod` shows it (not on the VPA, whose spam-filter
 * budget its evictions need), and a span event on the active span. A dry run only traces.
 */
export function tellNotUpdated(
  context: PodUpdateContext,
  scope: PodUpdateScope,
  pod: UpdaterPod,
  reason: UpdaterEventReason,
  why: string,
  type: EventType = 'Normal',
): void {
  const changes = recommendedChanges(scope, pod);
  const vpa = vpaReference(scope.vpa);
  const message = `Not updated to the recommendation of VPA ${vpa.namespace}/${vpa.name}${changes === '' ? '' : ` (${changes})`}: ${why}.`;
  trace.getActiveSpan()?.addEvent(reason, {
    [EVENT_REASON_ATTRIBUTE]: reason,
    pod: podId(pod),
    message,
  });
  if (!context.dryRun)
    context.recordEvent(podSubject(pod), type, reason, message);
}

export function podSubject(pod: UpdaterPod): EventSubject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid,
  };
}
