import { waitFor, WaitTimeoutError } from './wait.ts';

describe('waitFor', () => {
  it('returns the first defined value', async () => {
    let calls = 0;
    const value = await waitFor(
      'the third call',
      async () => (++calls === 3 ? 'ready' : undefined),
      {
        intervalMs: 1,
      },
    );
    expect({ value, calls }).toEqual({ value: 'ready', calls: 3 });
  });

  it('times out with the description and the last observation', async () => {
    const wait = waitFor(
      'replicas to reach 3',
      async () => undefined,
      { timeoutMs: 20, intervalMs: 5 },
      async () => 'replicas=1',
    );
    await expect(wait).rejects.toThrow(
      new WaitTimeoutError(
        'timed out after 0.02s waiting for replicas to reach 3; last seen: replicas=1',
      ),
    );
  });

  it('treats a throwing probe as not yet, and reports its last error', async () => {
    const wait = waitFor(
      'the API',
      () => Promise.reject(new Error('connection refused')),
      { timeoutMs: 20, intervalMs: 5 },
    );
    await expect(wait).rejects.toThrow(
      'waiting for the API; last error: connection refused',
    );
  });
});
