import fc from 'fast-check';
import { HistoryClock } from './history-clock.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('HistoryClock (golden vectors, longest gap an hour)', () => {
  it('keeps real time while samples come, and counts a 3-day gap as an hour', () => {
    const clock = new HistoryClock(HOUR);
    expect(clock.started).toBe(false);
    expect(clock.sample(0)).toBe(0);
    expect(clock.sample(5 * MINUTE)).toBe(5 * MINUTE);
    expect(clock.sample(65 * MINUTE)).toBe(65 * MINUTE);
    // 3 days after the last sample: 3 days - 1 h were skipped.
    const back = 65 * MINUTE + 3 * DAY;
    expect(clock.sample(back)).toBe(125 * MINUTE);
    expect(clock.sample(back + 5 * MINUTE)).toBe(130 * MINUTE);
    expect(clock.save()).toEqual({
      skippedMs: 3 * DAY - HOUR,
      lastRealMs: back + 5 * MINUTE,
    });
  });

  it('maps a late sample without moving on, and reads any time without moving on', () => {
    const clock = new HistoryClock(HOUR);
    clock.sample(0);
    clock.sample(2 * DAY);
    expect(clock.sample(DAY)).toBe(DAY - (2 * DAY - HOUR));
    expect(clock.at(10 * DAY)).toBe(10 * DAY - (2 * DAY - HOUR));
    expect(clock.save()).toEqual({
      skippedMs: 2 * DAY - HOUR,
      lastRealMs: 2 * DAY,
    });
  });

  it('carries on from a saved state as if never stopped', () => {
    const clock = new HistoryClock(HOUR);
    clock.sample(0);
    clock.sample(DAY);
    const restored = new HistoryClock(HOUR, clock.save());
    expect(restored.started).toBe(true);
    expect(restored.sample(3 * DAY)).toBe(clock.sample(3 * DAY));
  });
});

describe('HistoryClock (properties)', () => {
  const steps = fc.array(fc.integer({ min: 0, max: 5 * DAY }), {
    minLength: 1,
    maxLength: 200,
  });
  const longest = fc.integer({ min: MINUTE, max: DAY });

  it('moves on as real time does, by at most the longest gap at once, and never ahead of it', () => {
    fc.assert(
      fc.property(steps, longest, (gaps, longestGap) => {
        const clock = new HistoryClock(longestGap);
        let real = 0;
        let previous = clock.sample(real);
        for (const gap of gaps) {
          real += gap;
          const now = clock.sample(real);
          expect(now - previous).toBe(Math.min(gap, longestGap));
          expect(now).toBeLessThanOrEqual(real);
          previous = now;
        }
      }),
    );
  });
});
