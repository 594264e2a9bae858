import { cycleLoop } from './cycle-loop.js';
import { capture } from './log-capture.fixtures.js';
import { createLogger } from './logger.js';

describe('cycleLoop', () => {
  it('runs cycles only while leading, logs each one done, and hands failures on', async () => {
    const { destination, lines } = capture();
    const logger = createLogger({
      serviceName: 'test',
      serviceVersion: '0',
      env: {},
      destination,
    });
    let leading = false;
    let cycles = 0;
    const failures: unknown[] = [];
    const stop = new AbortController();
    const loop = cycleLoop({
      intervalMs: 5,
      leadership: {
        isLeading: () => leading,
        leadingSinceMs: () => (leading ? Date.now() : undefined),
      },
      cycle: async () => {
        cycles += 1;
        if (cycles === 2) throw new Error('API down');
        if (cycles === 3) stop.abort();
        return { vpas: cycles };
      },
      onFailure: (error) => failures.push(error),
      logger,
    });
    expect(loop.health().healthy).toBe(true);
    const running = loop.run(stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(cycles).toBe(0);
    leading = true;
    await running;

    expect(cycles).toBe(3);
    expect(failures).toEqual([new Error('API down')]);
    expect(
      lines()
        .filter((line) => line['msg'] === 'cycle done')
        .map((line) => line['vpas']),
    ).toEqual([1, 3]);
    expect(loop.health().healthy).toBe(true);
  });

  it('starts a term before its first cycle, retries a failed start, and ends it when the lead is lost', async () => {
    const { destination } = capture();
    const logger = createLogger({
      serviceName: 'test',
      serviceVersion: '0',
      env: {},
      destination,
    });
    let since: number | undefined = 1;
    const events: string[] = [];
    let starts = 0;
    const stop = new AbortController();
    const loop = cycleLoop({
      intervalMs: 2,
      leadership: {
        isLeading: () => since !== undefined,
        leadingSinceMs: () => since,
      },
      terms: {
        start: async () => {
          starts += 1;
          events.push(`start ${since}`);
          if (starts === 2) throw new Error('checkpoints unreadable');
        },
        end: () => events.push('end'),
      },
      cycle: async () => {
        events.push(`cycle ${since}`);
        const cycles = events.filter((e) => e.startsWith('cycle')).length;
        // Lead lost after the second cycle of term 1 and taken again later: term 2 starts
        // (its first start fails). The loop sees the loss right after this cycle returns.
        if (cycles === 2) {
          since = undefined;
          setTimeout(() => (since = 2), 10);
        }
        if (cycles === 3) stop.abort();
        return {};
      },
      onFailure: (error) => events.push(`failed: ${(error as Error).message}`),
      logger,
    });
    await loop.run(stop.signal);

    expect(events).toEqual([
      'start 1',
      'cycle 1',
      'cycle 1',
      'end',
      'start 2',
      'failed: checkpoints unreadable',
      'start 2',
      'cycle 2',
      'end',
    ]);
  });

  it("runs a term's first cycle as soon as the term has started, not an interval later", async () => {
    const { destination } = capture();
    const logger = createLogger({
      serviceName: 'test',
      serviceVersion: '0',
      env: {},
      destination,
    });
    const stop = new AbortController();
    const events: string[] = [];
    const startedMs = Date.now();
    await cycleLoop({
      // Far longer than Jest's timeout: a wait before the first cycle would fail the test.
      intervalMs: 3_600_000,
      leadership: { isLeading: () => true, leadingSinceMs: () => startedMs },
      terms: {
        start: async () => void events.push('start'),
        end: () => events.push('end'),
      },
      cycle: async () => {
        events.push('cycle');
        stop.abort();
        return {};
      },
      onFailure: (error) => events.push(`failed: ${String(error)}`),
      logger,
    }).run(stop.signal);
    expect(events).toEqual(['start', 'cycle', 'end']);
  });
});
