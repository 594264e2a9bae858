import fc from 'fast-check';
import {
  DEFAULT_SCALE_CACHE_TIMINGS,
  SCALE_CACHE_FRESHNESS_MS,
  SCALE_CACHE_LIFETIME_MS,
  ScaleCache,
} from './scale-cache.js';

const MINUTE = 60_000;

describe('ScaleCache', () => {
  let nowMs: number;
  let randomValue: number;
  const cache = () =>
    new ScaleCache<string>({
      now: () => nowMs,
      random: () => randomValue,
    });
  beforeEach(() => {
    nowMs = 1_000_000;
    randomValue = 0;
  });

  it("has upstream's recommender settings: fresh 10 min + up to 100 % jitter, kept 1 h unread", () => {
    expect(DEFAULT_SCALE_CACHE_TIMINGS).toEqual({
      freshForMs: 10 * MINUTE,
      jitterFactor: 1,
      lifetimeMs: 60 * MINUTE,
    });
  });

  it('misses until an answer is inserted, then serves it, stale or not', () => {
    const scales = cache();
    expect(scales.get('a')).toEqual({ found: false });
    scales.insert('a', 'one');
    expect(scales.get('a')).toEqual({ found: true, value: 'one' });
    nowMs += 30 * MINUTE;
    expect(scales.keysToRefresh()).toEqual(['a']);
    expect(scales.get('a')).toEqual({ found: true, value: 'one' });
  });

  it('keeps the first answer when a second lookup inserts too', () => {
    const scales = cache();
    scales.insert('a', 'first');
    scales.insert('a', 'second');
    expect(scales.get('a')).toEqual({ found: true, value: 'first' });
  });

  it('is due for a refresh once the jittered freshness has passed', () => {
    randomValue = 0.5;
    const scales = cache();
    scales.insert('a', 'one');
    nowMs += 15 * MINUTE;
    expect(scales.keysToRefresh()).toEqual([]);
    nowMs += 1;
    expect(scales.keysToRefresh()).toEqual(['a']);
  });

  it('is fresh again after a refresh, with the new answer', () => {
    const scales = cache();
    scales.insert('a', 'one');
    nowMs += 10 * MINUTE + 1;
    scales.refresh('a', 'two');
    expect(scales.keysToRefresh()).toEqual([]);
    expect(scales.get('a')).toEqual({ found: true, value: 'two' });
  });

  it('does not bring back an entry removed before its refresh arrived', () => {
    const scales = cache();
    scales.refresh('a', 'late');
    expect(scales.get('a')).toEqual({ found: false });
    expect(scales.size).toBe(0);
  });

  it('removes an entry nobody read for an hour, refreshed or not', () => {
    const scales = cache();
    scales.insert('read', 'r');
    scales.insert('unread', 'u');
    nowMs += 50 * MINUTE;
    scales.get('read');
    scales.refresh('unread', 'u2');
    nowMs += 10 * MINUTE;
    expect(scales.removeExpired()).toBe(0);
    nowMs += 1;
    expect(scales.removeExpired()).toBe(1);
    expect(scales.get('unread')).toEqual({ found: false });
    expect(scales.get('read')).toEqual({ found: true, value: 'r' });
  });

  it('property: an entry is fresh for 10 to 20 minutes, as the random draw sets', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 0, max: 30 * MINUTE }),
        (random, elapsedMs) => {
          nowMs = 0;
          randomValue = random;
          const scales = cache();
          scales.insert('a', 'one');
          nowMs = elapsedMs;
          const due = scales.keysToRefresh().includes('a');
          const freshUntil = SCALE_CACHE_FRESHNESS_MS * (1 + random);
          expect(due).toBe(elapsedMs > freshUntil);
          if (elapsedMs <= SCALE_CACHE_FRESHNESS_MS) expect(due).toBe(false);
          if (elapsedMs >= 2 * SCALE_CACHE_FRESHNESS_MS) expect(due).toBe(true);
        },
      ),
    );
  });

  type Step =
    | { op: 'read' | 'refresh' | 'remove' }
    | { op: 'wait'; ms: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.constantFrom<Step>({ op: 'read' }, { op: 'refresh' }, { op: 'remove' }),
    fc.record({
      op: fc.constant('wait' as const),
      ms: fc.integer({ min: 0, max: 2 * SCALE_CACHE_LIFETIME_MS }),
    }),
  );

  it('property: an entry stays exactly as long as it is read within every hour', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        nowMs = 0;
        randomValue = 0.3;
        const scales = cache();
        scales.insert('a', 'v0');
        let lastReadMs = 0;
        let removed = false;
        let version = 0;
        for (const { op, ...rest } of steps) {
          if (op === 'wait') nowMs += (rest as { ms: number }).ms;
          else if (op === 'refresh') scales.refresh('a', `v${++version}`);
          else if (op === 'remove') {
            const expired = nowMs - lastReadMs > SCALE_CACHE_LIFETIME_MS;
            expect(scales.removeExpired()).toBe(expired && !removed ? 1 : 0);
            removed ||= expired;
          } else {
            const read = scales.get('a');
            expect(read.found).toBe(!removed);
            if (read.found) {
              expect(read.value).toBe(`v${version}`);
              lastReadMs = nowMs;
            }
          }
        }
      }),
    );
  });
});
