import fc from 'fast-check';
import { medianOfRuns, mediansOfRuns } from './measure.js';

describe('mediansOfRuns', () => {
  it('gives each figure the median of its runs, within their lowest and highest', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            p50: fc.double({ noNaN: true }),
            p99: fc.double({ noNaN: true }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (results) => {
          const measured = await mediansOfRuns(results.length, (index) =>
            Promise.resolve(results[index] ?? { p50: 0, p99: 0 }),
          );
          for (const name of ['p50', 'p99'] as const) {
            const { value, spread } = measured[name];
            const values = results.map((result) => result[name]);
            expect(spread.runs).toBe(results.length);
            expect(spread.low).toBe(Math.min(...values));
            expect(spread.high).toBe(Math.max(...values));
            expect(values).toContain(value);
            expect(spread.low <= value && value <= spread.high).toBe(true);
          }
        },
      ),
    );
  });

  it('runs one measurement at a time, in order', async () => {
    const events: string[] = [];
    await mediansOfRuns(3, async (index) => {
      events.push(`start ${index}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
      events.push(`end ${index}`);
      return { x: index };
    });
    expect(events).toEqual([
      'start 0',
      'end 0',
      'start 1',
      'end 1',
      'start 2',
      'end 2',
    ]);
  });

  it('refuses a run count that is not a whole number of at least 1', async () => {
    await expect(mediansOfRuns(0, () => Promise.resolve({}))).rejects.toThrow(
      'runs must be a whole number of at least 1, got 0',
    );
    await expect(medianOfRuns(2.5, () => Promise.resolve(1))).rejects.toThrow(
      'runs must be a whole number of at least 1, got 2.5',
    );
  });

  it('gives medianOfRuns the same median and spread for a single figure', async () => {
    const timings = [5, 1, 4, 2, 3];
    let next = 0;
    expect(
      await medianOfRuns(5, () => Promise.resolve(timings[next++] ?? 0)),
    ).toEqual({ value: 3, spread: { low: 1, high: 5, runs: 5 } });
  });
});
