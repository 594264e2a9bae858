import fc from 'fast-check';
import { drainQueue } from './worker-pool.js';

/** A work function whose calls finish only when the test releases them, in any order. */
function gatedWork() {
  const started: number[] = [];
  const release = new Map<number, () => void>();
  let running = 0;
  let maxRunning = 0;
  return {
    started,
    get maxRunning() {
      return maxRunning;
    },
    work: (item: number) =>
      new Promise<void>((resolve) => {
        started.push(item);
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        release.set(item, () => {
          running -= 1;
          resolve();
        });
      }),
    releaseAll: async () => {
      while (release.size > 0) {
        const [item, done] = [...release][0] as [number, () => void];
        release.delete(item);
        done();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

describe('drainQueue', () => {
  it('takes every item once, in order, with at most `workers` at a time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 12 }),
        async (count, workers) => {
          const items = Array.from({ length: count }, (_, i) => i);
          const gate = gatedWork();
          const drained = drainQueue(items, workers, gate.work);
          await gate.releaseAll();
          expect(await drained).toBe(count);
          expect(gate.started).toEqual(items);
          expect(gate.maxRunning).toBeLessThanOrEqual(workers);
        },
      ),
    );
  });

  it('runs `workers` items at once when there are enough', async () => {
    const gate = gatedWork();
    const drained = drainQueue([1, 2, 3, 4, 5], 3, gate.work);
    await new Promise((resolve) => setImmediate(resolve));
    expect(gate.started).toEqual([1, 2, 3]);
    await gate.releaseAll();
    await drained;
    expect(gate.maxRunning).toBe(3);
  });

  it('lets each worker finish one item before asking whether to keep taking', async () => {
    const taken: number[] = [];
    const count = await drainQueue(
      [1, 2, 3, 4, 5],
      2,
      async (item) => {
        taken.push(item);
      },
      (done) => done === 0,
    );
    expect(count).toBe(2);
    expect(taken).toEqual([1, 2]);
  });
});
