import fc from 'fast-check';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  let nowMs = 0;
  const clock = () => nowMs;
  beforeEach(() => (nowMs = 1_000_000));

  it('lets a burst through at once, then spaces tokens by the rate', () => {
    const bucket = new TokenBucket(2, 3, clock);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([
      0, 0, 0,
    ]);
    expect(bucket.reserve()).toBe(500);
    expect(bucket.reserve()).toBe(1_000);
  });

  it('refills with time, up to the burst', () => {
    const bucket = new TokenBucket(1, 2, clock);
    bucket.reserve();
    bucket.reserve();
    nowMs += 60_000;
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([
      0, 0, 1_000,
    ]);
  });

  it('takes nothing when the wait would exceed the caller’s limit', () => {
    const bucket = new TokenBucket(1, 1, clock);
    bucket.reserve();
    expect(bucket.reserve(999)).toBeUndefined();
    expect(bucket.reserve(1_000)).toBe(1_000);
  });

  it('never waits with a rate of 0 or less', () => {
    const bucket = new TokenBucket(-1, 1, clock);
    expect(bucket.unlimited).toBe(true);
    for (let i = 0; i < 100; i += 1) expect(bucket.reserve()).toBe(0);
  });

  it('refuses a limit without room for one token', () => {
    expect(() => new TokenBucket(5, 0, clock)).toThrow(
      'a rate limit of 5/s needs a burst of at least 1, got 0',
    );
  });

  it('never lets more than burst + rate × window act within any window', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 50, noNaN: true }),
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.integer({ min: 0, max: 2_000 }), {
          minLength: 1,
          maxLength: 60,
        }),
        (rate, burst, gaps) => {
          let time = 0;
          const bucket = new TokenBucket(rate, burst, () => time);
          const actions = gaps.map((gap) => {
            time += gap;
            return time + (bucket.reserve() ?? Number.NaN);
          });
          for (const start of actions) {
            for (const windowMs of [0, 250, 1_000, 5_000]) {
              const inWindow = actions.filter(
                (at) => at >= start && at <= start + windowMs,
              ).length;
              expect(inWindow).toBeLessThanOrEqual(
                burst + Math.ceil((rate * windowMs) / 1000) + 1e-9,
              );
            }
          }
        },
      ),
    );
  });
});
