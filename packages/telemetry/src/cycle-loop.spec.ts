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
});
