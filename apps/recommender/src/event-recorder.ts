import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';

/** The object an event is about, as `kubectl describe` finds it. */
export interface EventSubject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

/** Writes core/v1 Warning events, e.g. on a VPA whose checkpoint could not be read. */
export type WarningRecorder = (
  subject: EventSubject,
  reason: string,
  message: string,
) => Promise<void>;

const COMPONENT = 'tandem-recommender';

export function warningRecorder(kubeConfig: KubeConfig): WarningRecorder {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  return async (subject, reason, message) => {
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
        type: 'Warning',
        reason,
        message,
        source: { component: COMPONENT },
        reportingComponent: COMPONENT,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    });
  };
}
