import fc from 'fast-check';
import { backoffDelayMs, DEFAULT_BACKOFF } from './backoff.js';

const options = { initialMs: 100, maxMs: 1_000, factor: 2, jitter: 0.5 };

describe('backoffDelayMs', () => {
  it('grows exponentially from initialMs without jitter', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelayMs(a, 0, options))).toEqual([
      100, 200, 400, 800,
    ]);
  });

  it('is capped at maxMs before jitter', () => {
    expect(backoffDelayMs(5, 0, options)).toBe(1_000);
    expect(backoffDelayMs(1_000, 0, options)).toBe(1_000);
    expect(backoffDelayMs(10_000, 0.999, DEFAULT_BACKOFF)).toBeLessThan(
      DEFAULT_BACKOFF.maxMs * (1 + DEFAULT_BACKOFF.jitter),
    );
  });

  it('adds up to `jitter` of the delay at random', () => {
    expect(backoffDelayMs(1, 0.5, options)).toBe(125);
    expect(backoffDelayMs(4, 1, options)).toBe(1_200);
  });

  it('treats attempt 0 or less like the first retry', () => {
    expect(backoffDelayMs(0, 0, options)).toBe(100);
    expect(backoffDelayMs(-3, 0, options)).toBe(100);
  });

  it('stays within [base, base × (1 + jitter)] and never decreases with attempts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (attempt, random) => {
          const d = backoffDelayMs(attempt, random, DEFAULT_BACKOFF);
          const base = Math.min(
            DEFAULT_BACKOFF.maxMs,
            DEFAULT_BACKOFF.initialMs * 2 ** (attempt - 1),
          );
          expect(Number.isFinite(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(base);
          expect(d).toBeLessThanOrEqual(base * (1 + DEFAULT_BACKOFF.jitter));
          expect(backoffDelayMs(attempt + 1, 0)).toBeGreaterThanOrEqual(
            backoffDelayMs(attempt, 0),
          );
        },
      ),
    );
  });
});
