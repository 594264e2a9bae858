import { retryUntilDone } from './retry.js';

const QUICK = { initialMs: 1, maxMs: 5, factor: 2, jitter: 0 };

describe('retryUntilDone', () => {
  it('retries until the task succeeds, handing each failure to onError', async () => {
    const errors: unknown[] = [];
    let attempts = 0;
    const done = await retryUntilDone(
      async () => {
        attempts += 1;
        if (attempts < 4) throw new Error(`attempt ${attempts}`);
      },
      {
        signal: new AbortController().signal,
        onError: (error) => errors.push((error as Error).message),
        backoff: QUICK,
      },
    );
    expect({ done, attempts, errors }).toEqual({
      done: true,
      attempts: 4,
      errors: ['attempt 1', 'attempt 2', 'attempt 3'],
    });
  });

  it('stops waiting and retrying on abort, resolving false', async () => {
    const stopping = new AbortController();
    let attempts = 0;
    const done = retryUntilDone(
      () => {
        attempts += 1;
        return Promise.reject(new Error('down'));
      },
      {
        signal: stopping.signal,
        onError: () => stopping.abort(),
        backoff: { ...QUICK, initialMs: 60_000, maxMs: 60_000 },
      },
    );
    await expect(done).resolves.toBe(false);
    expect(attempts).toBe(1);
  });
});
