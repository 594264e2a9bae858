import fc from 'fast-check';
import { DecayedMax } from './decayed-max.js';

const HOUR = 3_600_000;

describe('DecayedMax', () => {
  it('is 0 before any value', () => {
    expect(new DecayedMax(HOUR).at(0)).toBe(0);
  });

  it('rises to a larger value at once', () => {
    const max = new DecayedMax(HOUR);
    max.add(0, 100);
    max.add(1, 1000);
    expect(max.at(1)).toBe(1000);
  });

  it('halves every half-life after the last rise', () => {
    const max = new DecayedMax(2 * HOUR);
    max.add(0, 1024);
    expect(max.at(0)).toBe(1024);
    expect(max.at(2 * HOUR)).toBe(512);
    expect(max.at(4 * HOUR)).toBe(256);
    expect(max.at(HOUR)).toBe(1024 * 2 ** -0.5);
  });

  it('keeps the decayed maximum over a smaller later value, and decays from there', () => {
    const max = new DecayedMax(HOUR);
    max.add(0, 800);
    max.add(HOUR, 300); // 800 decayed to 400 still beats 300
    expect(max.at(HOUR)).toBe(400);
    max.add(2 * HOUR, 250); // 400 decayed to 200: 250 takes over
    expect(max.at(2 * HOUR)).toBe(250);
    expect(max.at(3 * HOUR)).toBe(125);
  });

  it('does not grow when asked about a time before its last value', () => {
    const max = new DecayedMax(HOUR);
    max.add(HOUR, 64);
    expect(max.at(0)).toBe(64);
  });

  it('is never below the latest value nor above the largest seen', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 60_000, max: 100 * HOUR }),
        fc.array(
          fc.record({
            stepMs: fc.integer({ min: 0, max: 10 * HOUR }),
            value: fc.integer({ min: 0, max: 2 ** 40 }),
          }),
          { minLength: 1, maxLength: 50 },
        ),
        (halfLifeMs, samples) => {
          const max = new DecayedMax(halfLifeMs);
          let timeMs = 0;
          let largest = 0;
          for (const { stepMs, value } of samples) {
            timeMs += stepMs;
            max.add(timeMs, value);
            largest = Math.max(largest, value);
            const now = max.at(timeMs);
            expect(now).toBeGreaterThanOrEqual(value);
            expect(now).toBeLessThanOrEqual(largest);
          }
        },
      ),
    );
  });
});
