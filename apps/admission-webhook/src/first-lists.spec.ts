import { ColdCacheError } from '@tandem/kube';
import { firstListsWithin } from './first-lists.js';

describe('firstListsWithin', () => {
  const cache = (hasSynced: boolean) => ({ hasSynced });

  it('returns at once when every cache has listed', async () => {
    const wait = firstListsWithin(
      [{ kind: 'VerticalPodAutoscaler', cache: cache(true) }],
      new Promise<void>(() => undefined),
      10_000,
    );
    await expect(wait()).resolves.toBeUndefined();
  });

  it('waits for the first lists, no longer', async () => {
    const vpas = { hasSynced: false };
    let listed!: () => void;
    const wait = firstListsWithin(
      [{ kind: 'VerticalPodAutoscaler', cache: vpas }],
      new Promise<void>((resolve) => (listed = resolve)),
      10_000,
    );
    const waiting = wait();
    vpas.hasSynced = true;
    listed();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('names the first cache still cold at the deadline', async () => {
    const wait = firstListsWithin(
      [
        { kind: 'VerticalPodAutoscaler', cache: cache(true) },
        { kind: 'LimitRange', cache: cache(false) },
      ],
      new Promise<void>(() => undefined),
      20,
    );
    const started = performance.now();
    const waiting = wait();
    await expect(waiting).rejects.toBeInstanceOf(ColdCacheError);
    await expect(waiting).rejects.toThrow(
      'the LimitRange cache has not completed its first list within 0.02s',
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('says the cache is cold when the start failed before the deadline', async () => {
    const wait = firstListsWithin(
      [{ kind: 'VerticalPodAutoscaler', cache: cache(false) }],
      Promise.reject(new Error('stopped')),
      10_000,
    );
    await expect(wait()).rejects.toMatchObject({
      kind: 'VerticalPodAutoscaler',
    });
  });
});
