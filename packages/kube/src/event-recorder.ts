import { httpStatusOf } from './api-errors.js';
import type { KubeConnection } from './connection/kube-connection.js';
import { kubeSendJson, type SendJson } from './connection/kube-request.js';
import {
  EventCorrelator,
  type EventCorrelationOptions,
  type EventSubject,
  type EventType,
  type EventWrite,
} from './event-correlation.js';

/**
 * Records an event about `subject`. Returns at once: the write happens later, in order, and
 * never fails the caller (an admission review must not wait for it).
 */
export type EventRecorder = (
  subject: EventSubject,
  type: EventType,
  reason: string,
  message: string,
) => void;

export interface QueuedEventRecorder extends EventRecorder {
  /** Settles once every event recorded so far is written or given up (tests, shutdown). */
  drained(): Promise<void>;
}

export interface EventRecorderOptions {
  /** A write that failed, or an event dropped because the queue was full. */
  recovered?: (error: unknown) => void;
  /** Writes waiting at most; client-go's broadcaster queues 1000 (`maxQueuedEvents`). */
  queueLimit?: number;
  now?: () => number;
  correlation?: EventCorrelationOptions;
}

const QUEUE_LIMIT = 1000;

/**
 * Events written as `component` (their `source` and `reportingComponent`), correlated as
 * client-go's recorder does (`EventCorrelator`: counts, combined messages, a spam filter),
 * then written one at a time from a bounded queue, as client-go's broadcaster writes them
 * (`recordToSink`). A raised count is a strategic-merge PATCH of the earlier Event; one the
 * API server no longer has (Events expire after an hour) is created again, as
 * `recordEvent` in k8s.io/client-go/tools/record/event.go does. Unlike client-go, a failed
 * write is not retried: it is reported, and the next identical event writes it again.
 */
export function eventRecorder(
  connection: KubeConnection,
  component: string,
  options: EventRecorderOptions = {},
): QueuedEventRecorder {
  const { recovered = () => undefined, queueLimit = QUEUE_LIMIT } = options;
  const correlator = new EventCorrelator(
    component,
    options.now,
    options.correlation,
  );
  const send = kubeSendJson(connection);
  const queue: Exclude<EventWrite, { action: 'drop' }>[] = [];
  let draining: Promise<void> | undefined;

  const drain = async () => {
    for (let write = queue.shift(); write; write = queue.shift())
      await writeEvent(send, write).catch(recovered);
    draining = undefined;
  };
  const record: EventRecorder = (subject, type, reason, message) => {
    if (queue.length >= queueLimit) {
      recovered(
        new Error(
          `event ${reason} on ${subject.kind} ${subject.namespace}/${subject.name} dropped: ${queueLimit} writes are waiting`,
        ),
      );
      return;
    }
    const write = correlator.correlate(subject, type, reason, message);
    if (write.action === 'drop') return;
    queue.push(write);
    draining ??= drain();
  };
  return Object.assign(record, {
    drained: () => draining ?? Promise.resolve(),
  });
}

async function writeEvent(
  send: SendJson,
  { action, event }: Exclude<EventWrite, { action: 'drop' }>,
): Promise<void> {
  const events = `/api/v1/namespaces/${encodeURIComponent(event.metadata.namespace)}/events`;
  if (action === 'patch') {
    const { count, lastTimestamp, message } = event;
    try {
      await send(
        'PATCH',
        `${events}/${encodeURIComponent(event.metadata.name)}`,
        { count, lastTimestamp, message },
        'application/strategic-merge-patch+json',
      );
      return;
    } catch (error) {
      if (httpStatusOf(error) !== 404) throw error;
    }
  }
  await send('POST', events, event);
}
