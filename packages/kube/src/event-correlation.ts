import { LruCache } from './lru-cache.js';
import { TokenBucket } from './token-bucket.js';

/** The object an event is about, as `kubectl describe` finds it. */
export interface EventSubject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

export type EventType = 'Normal' | 'Warning';

/** A core/v1 Event as the API server stores it (the fields a recorder sets). */
export interface CoreEvent {
  metadata: { name: string; namespace: string };
  involvedObject: EventSubject;
  type: EventType;
  reason: string;
  message: string;
  source: { component: string };
  reportingComponent: string;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
}

/**
 * What to write for one recorded event: a new Event, the `count`, `lastTimestamp` and
 * `message` of the earlier Event of the same name (created anew if it is gone), or nothing.
 */
export type EventWrite =
  | { action: 'create'; event: CoreEvent }
  | { action: 'patch'; event: CoreEvent }
  | { action: 'drop' };

/** client-go's defaults (k8s.io/client-go/tools/record/events_cache.go). */
export const EVENT_CORRELATION_DEFAULTS = Object.freeze({
  /** `maxLruCacheEntries`: keys each of the three caches holds. */
  maxLruEntries: 4096,
  /** `defaultAggregateMaxEvents`: distinct messages before similar events are combined. */
  aggregateMaxEvents: 10,
  /** `defaultAggregateIntervalInSeconds`: a quiet spell this long starts the count afresh. */
  aggregateIntervalMs: 600_000,
  /** `defaultSpamBurst`: events an object may get at once. */
  spamBurst: 25,
  /** `defaultSpamQPS`: one more event every five minutes. */
  spamQps: 1 / 300,
});

export type EventCorrelationOptions = Partial<
  typeof EVENT_CORRELATION_DEFAULTS
>;

/** The prefix of a combined event's message (`EventAggregatorByReasonMessageFunc`). */
export const COMBINED_MESSAGE_PREFIX = '(combined from similar events): ';

interface Aggregate {
  messages: Set<string>;
  lastMs: number;
}

interface Observation {
  name: string;
  count: number;
  firstTimestamp: string;
}

/**
 * client-go's `EventCorrelator.EventCorrelate`, without its I/O: for each event, in order,
 *
 * 1. `EventAggregator.EventAggregate`: events of one source, object, type and reason with
 *    `aggregateMaxEvents` distinct messages, none more than `aggregateIntervalMs` after the
 *    last, become one event whose message is the latest with `COMBINED_MESSAGE_PREFIX`;
 * 2. `eventLogger.eventObserve`: an event identical to one already written (same source,
 *    object, type, reason and message; combined events by their aggregate key) raises that
 *    Event's `count` instead of making a new one;
 * 3. `EventSourceObjectSpamFilter.Filter`: a token bucket per source and object
 *    (`spamBurst`, `spamQps`) drops what exceeds it.
 *
 * Every cache is an LRU of `maxLruEntries` keys, so the state stays bounded whatever the
 * cluster holds. Names are `<object>.<hex nanoseconds>`, as client-go's `makeEvent` names
 * them, so a count raised before the create was even sent still names the right Event.
 */
export class EventCorrelator {
  private readonly settings: typeof EVENT_CORRELATION_DEFAULTS;
  private readonly aggregates: LruCache<Aggregate>;
  private readonly observations: LruCache<Observation>;
  private readonly spam: LruCache<TokenBucket>;
  private lastNanos = 0n;

  constructor(
    private readonly component: string,
    private readonly now: () => number = Date.now,
    options: EventCorrelationOptions = {},
  ) {
    this.settings = { ...EVENT_CORRELATION_DEFAULTS, ...options };
    const { maxLruEntries } = this.settings;
    this.aggregates = new LruCache(maxLruEntries);
    this.observations = new LruCache(maxLruEntries);
    this.spam = new LruCache(maxLruEntries);
  }

  correlate(
    subject: EventSubject,
    type: EventType,
    reason: string,
    message: string,
  ): EventWrite {
    const nowMs = this.now();
    const objectKey = [
      this.component,
      subject.kind,
      subject.namespace,
      subject.name,
      subject.uid ?? '',
      subject.apiVersion,
    ].join('\n');
    const aggregateKey = `${objectKey}\n${type}\n${reason}`;
    const combined = this.aggregate(aggregateKey, message, nowMs);
    const event = this.observe(
      combined ? aggregateKey : `${aggregateKey}\n${message}`,
      {
        subject,
        type,
        reason,
        message: combined ? `${COMBINED_MESSAGE_PREFIX}${message}` : message,
      },
      nowMs,
    );
    if (this.spammed(objectKey)) return { action: 'drop' };
    return { action: event.count > 1 ? 'patch' : 'create', event };
  }

  /** Whether the event is to be combined with its similar ones. */
  private aggregate(key: string, message: string, nowMs: number): boolean {
    let aggregate = this.aggregates.get(key);
    if (
      aggregate === undefined ||
      nowMs - aggregate.lastMs > this.settings.aggregateIntervalMs
    )
      aggregate = { messages: new Set(), lastMs: nowMs };
    aggregate.messages.add(message);
    aggregate.lastMs = nowMs;
    this.aggregates.set(key, aggregate);
    if (aggregate.messages.size < this.settings.aggregateMaxEvents)
      return false;
    // client-go pops an arbitrary message (`PopAny`) so the set never grows past the
    // maximum; the oldest here, so the outcome does not depend on map order.
    for (const oldest of aggregate.messages) {
      aggregate.messages.delete(oldest);
      break;
    }
    return true;
  }

  /** The event to write, raising the count of an earlier identical one. */
  private observe(
    key: string,
    what: Pick<CoreEvent, 'type' | 'reason' | 'message'> & {
      subject: EventSubject;
    },
    nowMs: number,
  ): CoreEvent {
    const timestamp = rfc3339(nowMs);
    const last = this.observations.get(key);
    const observation: Observation = last
      ? { ...last, count: last.count + 1 }
      : {
          name: `${what.subject.name}.${this.nanos(nowMs).toString(16)}`,
          count: 1,
          firstTimestamp: timestamp,
        };
    this.observations.set(key, observation);
    return {
      metadata: {
        name: observation.name,
        namespace: what.subject.namespace,
      },
      involvedObject: what.subject,
      type: what.type,
      reason: what.reason,
      message: what.message,
      source: { component: this.component },
      reportingComponent: this.component,
      firstTimestamp: observation.firstTimestamp,
      lastTimestamp: timestamp,
      count: observation.count,
    };
  }

  private spammed(objectKey: string): boolean {
    let bucket = this.spam.get(objectKey);
    if (bucket === undefined) {
      const { spamQps, spamBurst } = this.settings;
      bucket = new TokenBucket(spamQps, spamBurst, this.now);
    }
    this.spam.set(objectKey, bucket);
    return bucket.reserve(0) === undefined;
  }

  /** Unix nanoseconds, strictly increasing, so two events of one millisecond differ. */
  private nanos(nowMs: number): bigint {
    const nanos = BigInt(Math.trunc(nowMs)) * 1_000_000n;
    this.lastNanos = nanos > this.lastNanos ? nanos : this.lastNanos + 1n;
    return this.lastNanos;
  }
}

/** metav1.Time's JSON form: RFC 3339 to the second. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
