import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';

/** The object an event is about, as `kubectl describe` finds it. */
export interface EventSubject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

export type EventType = 'Normal' | 'Warning';

/** Writes one core/v1 Event about `subject`. */
export type EventRecorder = (
  subject: EventSubject,
  type: EventType,
  reason: string,
  message: string,
) => Promise<void>;

/** Events written as `component` (their `source` and `reportingComponent`). */
export function eventRecorder(
  kubeConfig: KubeConfig,
  component: string,
): EventRecorder {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return async (subject, type, reason, message) => {
    const now = new Date();
    await core.createNamespacedEvent({
      namespace: subject.namespace,
      body: {
        metadata: { generateName: `${subject.name}.` },
        involvedObject: {
          apiVersion: subject.apiVersion,
          kind: subject.kind,
          namespace: subject.namespace,
          name: subject.name,
          ...(subject.uid === undefined ? {} : { uid: subject.uid }),
        },
        type,
        reason,
        message,
        source: { component },
        reportingComponent: component,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    });
  };
}
