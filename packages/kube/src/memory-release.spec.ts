import {
  lastResortCollection,
  releaseMemoryAfterLists,
} from './memory-release.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('releaseMemoryAfterLists', () => {
  it('collects once, the delay after the last of a burst of lists', async () => {
    let collections = 0;
    const listed = releaseMemoryAfterLists({
      collect: () => (collections += 1),
      delayMs: 50,
    });
    listed();
    await sleep(10);
    const restarted = performance.now();
    listed();
    listed();
    for (const deadline = Date.now() + 5_000; collections === 0; )
      if (Date.now() > deadline) throw new Error('no collection in 5 s');
      else await sleep(5);
    // The timer restarted with the last call: never earlier than the delay after it.
    expect(performance.now() - restarted).toBeGreaterThanOrEqual(49);
    await sleep(200);
    expect(collections).toBe(1);
  });
});

describe('lastResortCollection', () => {
  it('frees what nothing holds any more, at once', () => {
    const collect = lastResortCollection();
    collect();
    const before = process.memoryUsage().heapUsed;
    // 64 MiB of doubles: what the heap reports held may be a little less (a scavenge
    // during the allocation frees earlier garbage), never half of it.
    let garbage: number[][] | undefined = Array.from({ length: 128 }, () =>
      Array.from({ length: 65_536 }, (_, index) => index + 0.5),
    );
    const held = process.memoryUsage().heapUsed;
    expect(garbage).toHaveLength(128);
    expect(held - before).toBeGreaterThan(32 * 2 ** 20);
    garbage = undefined;
    collect();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(8 * 2 ** 20);
  });
});
