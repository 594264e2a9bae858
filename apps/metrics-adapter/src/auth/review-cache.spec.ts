import { reviewCache } from './review-cache.js';

function setup(maxEntries?: number) {
  let nowMs = 0;
  const calls: string[] = [];
  let fail = false;
  const lookup = reviewCache<string, string>({
    ttlMs: 10_000,
    now: () => nowMs,
    maxEntries,
    keyOf: (input) => input.toLowerCase(),
    review: async (input) => {
      calls.push(input);
      if (fail) throw new Error('API down');
      return `answer ${calls.length}`;
    },
  });
  return {
    lookup,
    calls,
    advance: (ms: number) => (nowMs += ms),
    failing: (value: boolean) => (fail = value),
  };
}

describe('reviewCache', () => {
  it('reuses an answer for its TTL, by key, then asks again', async () => {
    const { lookup, calls, advance } = setup();
    expect(await lookup('A')).toBe('answer 1');
    advance(9_999);
    expect(await lookup('a')).toBe('answer 1');
    advance(1);
    expect(await lookup('a')).toBe('answer 2');
    expect(calls).toEqual(['A', 'a']);
  });

  it('shares one review among concurrent lookups', async () => {
    const { lookup, calls } = setup();
    const answers = await Promise.all([lookup('a'), lookup('a'), lookup('b')]);
    expect(answers).toEqual(['answer 1', 'answer 1', 'answer 2']);
    expect(calls).toEqual(['a', 'b']);
  });

  it('does not cache a failure', async () => {
    const { lookup, calls, failing } = setup();
    failing(true);
    await expect(lookup('a')).rejects.toThrow('API down');
    failing(false);
    expect(await lookup('a')).toBe('answer 2');
    expect(calls).toHaveLength(2);
  });

  it('keeps at most maxEntries answers, making room from expired ones', async () => {
    const { lookup, calls, advance } = setup(2);
    await lookup('a');
    await lookup('b');
    await lookup('c'); // full: answered, not kept
    await lookup('c');
    expect(calls).toEqual(['a', 'b', 'c', 'c']);
    advance(10_000);
    await lookup('d'); // a and b expired: room again
    await lookup('d');
    expect(calls).toEqual(['a', 'b', 'c', 'c', 'd']);
  });
});
