import fc from 'fast-check';
import {
  COMBINED_MESSAGE_PREFIX,
  EVENT_CORRELATION_DEFAULTS,
  EventCorrelator,
  type EventSubject,
  type EventWrite,
} from './event-correlation.js';

const vpa: EventSubject = {
  apiVersion: 'autoscaling.k8s.io/v1',
  kind: 'VerticalPodAutoscaler',
  namespace: 'shop',
  name: 'web',
  uid: 'u-1',
};
const MINUTE_MS = 60_000;

function correlator(options = {}) {
  const clock = { nowMs: Date.parse('2026-11-27T06:00:00Z') };
  return {
    clock,
    correlator: new EventCorrelator('tandem-test', () => clock.nowMs, options),
  };
}

function written(write: EventWrite) {
  if (write.action === 'drop') throw new Error('dropped');
  return write.event;
}

describe('EventCorrelator', () => {
  it('creates an Event named after its object, count 1, as client-go makes it', () => {
    const { correlator: events } = correlator();
    const write = events.correlate(vpa, 'Normal', 'Moved', 'cpu 1 -> 2');
    expect(write).toEqual({
      action: 'create',
      event: {
        metadata: { name: 'web.18ebd17a6223c000', namespace: 'shop' },
        involvedObject: vpa,
        type: 'Normal',
        reason: 'Moved',
        message: 'cpu 1 -> 2',
        source: { component: 'tandem-test' },
        reportingComponent: 'tandem-test',
        firstTimestamp: '2026-11-27T06:00:00Z',
        lastTimestamp: '2026-11-27T06:00:00Z',
        count: 1,
      },
    });
  });

  it('raises the count of an identical event instead of making another', () => {
    const { clock, correlator: events } = correlator();
    const first = written(events.correlate(vpa, 'Normal', 'Moved', 'same'));
    clock.nowMs += 3 * MINUTE_MS;
    const second = events.correlate(vpa, 'Normal', 'Moved', 'same');
    expect(second).toEqual({
      action: 'patch',
      event: {
        ...first,
        count: 2,
        lastTimestamp: '2026-11-27T06:03:00Z',
      },
    });
  });

  it('tells apart events that differ in type, reason, object or message', () => {
    const { correlator: events } = correlator();
    const names = new Set(
      [
        events.correlate(vpa, 'Normal', 'Moved', 'a'),
        events.correlate(vpa, 'Warning', 'Moved', 'a'),
        events.correlate(vpa, 'Normal', 'Other', 'a'),
        events.correlate({ ...vpa, name: 'api' }, 'Normal', 'Moved', 'a'),
        events.correlate(vpa, 'Normal', 'Moved', 'b'),
      ].map((write) => {
        expect(write.action).toBe('create');
        return written(write).metadata.name;
      }),
    );
    expect(names.size).toBe(5);
  });

  it('combines the tenth distinct message of one reason within ten minutes', () => {
    const { clock, correlator: events } = correlator();
    for (let i = 1; i < 10; i += 1) {
      expect(events.correlate(vpa, 'Normal', 'Moved', `m${i}`).action).toBe(
        'create',
      );
      clock.nowMs += MINUTE_MS;
    }
    const combined = written(events.correlate(vpa, 'Normal', 'Moved', 'm10'));
    expect(combined.message).toBe(`${COMBINED_MESSAGE_PREFIX}m10`);
    expect(combined.count).toBe(1);
    const again = events.correlate(vpa, 'Normal', 'Moved', 'm11');
    expect(again).toMatchObject({
      action: 'patch',
      event: {
        metadata: combined.metadata,
        message: `${COMBINED_MESSAGE_PREFIX}m11`,
        count: 2,
      },
    });
  });

  it('starts the combining afresh after ten quiet minutes', () => {
    const { clock, correlator: events } = correlator();
    for (let i = 1; i < 10; i += 1)
      events.correlate(vpa, 'Normal', 'Moved', `m${i}`);
    clock.nowMs += 10 * MINUTE_MS + 1;
    expect(
      written(events.correlate(vpa, 'Normal', 'Moved', 'm10')).message,
    ).toBe('m10');
  });

  it('lets 25 events through for one object, then one every five minutes', () => {
    const { clock, correlator: events } = correlator();
    const actions = Array.from(
      { length: 30 },
      (_, i) => events.correlate(vpa, 'Normal', `R${i % 3}`, `m${i}`).action,
    );
    expect(actions.filter((action) => action !== 'drop')).toHaveLength(25);
    expect(actions.slice(25)).toEqual(Array(5).fill('drop'));
    expect(
      events.correlate({ ...vpa, name: 'other' }, 'Normal', 'R0', 'x').action,
    ).toBe('create');
    clock.nowMs += 5 * MINUTE_MS;
    expect(events.correlate(vpa, 'Normal', 'R0', 'late').action).not.toBe(
      'drop',
    );
    expect(events.correlate(vpa, 'Normal', 'R0', 'later').action).toBe('drop');
  });

  it('counts the events the spam filter dropped, as client-go does', () => {
    const { clock, correlator: events } = correlator();
    for (let i = 0; i < 27; i += 1)
      events.correlate(vpa, 'Normal', 'R', 'same');
    clock.nowMs += 5 * MINUTE_MS;
    expect(written(events.correlate(vpa, 'Normal', 'R', 'same')).count).toBe(
      28,
    );
  });

  it('forgets the least recently used key past its bound', () => {
    const { correlator: events } = correlator({ maxLruEntries: 2 });
    events.correlate(vpa, 'Normal', 'R', 'same');
    events.correlate({ ...vpa, name: 'b' }, 'Normal', 'R', 'same');
    events.correlate({ ...vpa, name: 'c' }, 'Normal', 'R', 'same');
    expect(events.correlate(vpa, 'Normal', 'R', 'same').action).toBe('create');
  });

  it('names two events of one millisecond apart', () => {
    const { correlator: events } = correlator();
    const a = written(events.correlate(vpa, 'Normal', 'R', 'a'));
    const b = written(events.correlate(vpa, 'Normal', 'R', 'b'));
    expect(a.metadata.name).not.toBe(b.metadata.name);
  });

  describe('properties', () => {
    const subjects = fc.constantFrom('a', 'b', 'c');
    const recorded = fc.record({
      name: subjects,
      reason: fc.constantFrom('R1', 'R2'),
      message: fc.constantFrom('m1', 'm2', 'm3'),
      afterMs: fc.integer({ min: 0, max: 4 * MINUTE_MS }),
    });
    type Recorded = typeof recorded extends fc.Arbitrary<infer T> ? T : never;

    /** Replays `sequence` against a fresh correlator, handing each write to `check`. */
    function replay(
      sequence: readonly Recorded[],
      check: (write: EventWrite, recorded: Recorded) => void,
    ): number {
      const { clock, correlator: events } = correlator();
      const startMs = clock.nowMs;
      for (const one of sequence) {
        clock.nowMs += one.afterMs;
        const subject = { ...vpa, name: one.name };
        check(
          events.correlate(subject, 'Normal', one.reason, one.message),
          one,
        );
      }
      return clock.nowMs - startMs;
    }

    it('an identical event always patches the Event it first created, its count one higher', () => {
      fc.assert(
        fc.property(fc.array(recorded, { maxLength: 80 }), (sequence) => {
          const last = new Map<string, { name: string; count: number }>();
          replay(sequence, (write, { name, reason, message }) => {
            if (write.action === 'drop') return;
            // Fewer than ten messages per reason: nothing is ever combined.
            expect(write.event.message).toBe(message);
            const key = `${name}/${reason}/${message}`;
            const before = last.get(key);
            if (before === undefined) expect(write.action).toBe('create');
            else {
              expect(write.action).toBe('patch');
              expect(write.event.metadata.name).toBe(before.name);
              expect(write.event.count).toBeGreaterThan(before.count);
            }
            last.set(key, {
              name: write.event.metadata.name,
              count: write.event.count,
            });
          });
        }),
      );
    });

    it('no object gets more than the burst plus the refill over any run', () => {
      fc.assert(
        fc.property(fc.array(recorded, { maxLength: 200 }), (sequence) => {
          const passed = new Map<string, number>();
          const elapsedMs = replay(sequence, (write, { name }) => {
            if (write.action !== 'drop')
              passed.set(name, (passed.get(name) ?? 0) + 1);
          });
          const { spamBurst, spamQps } = EVENT_CORRELATION_DEFAULTS;
          const allowed = spamBurst + (elapsedMs / 1000) * spamQps;
          for (const count of passed.values())
            expect(count).toBeLessThanOrEqual(Math.floor(allowed));
        }),
      );
    });

    it('combines only once a reason has ten distinct messages in its window', () => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 60 }),
          (messages) => {
            const { clock, correlator: events } = correlator({
              spamBurst: 1_000,
            });
            const seen = new Set<number>();
            for (const message of messages) {
              clock.nowMs += MINUTE_MS;
              seen.add(message);
              const { message: text } = written(
                events.correlate(vpa, 'Normal', 'R', `m${message}`),
              );
              if (seen.size < 10) expect(text).toBe(`m${message}`);
            }
          },
        ),
      );
    });
  });
});
