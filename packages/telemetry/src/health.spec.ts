import fc from 'fast-check';
import {
  combineHealth,
  cycleHealth,
  DEFAULT_MAX_INTERVALS,
  healthy,
  leaderCycleHealth,
  unhealthy,
} from './health.js';

const MINUTE = 60_000;

describe('cycleHealth', () => {
  const startedMs = 1_000_000;

  it('is healthy right after start, before any cycle', () => {
    expect(
      cycleHealth({
        nowMs: startedMs,
        lastSuccessMs: undefined,
        startedMs,
        intervalMs: MINUTE,
      }),
    ).toEqual(healthy);
  });

  it('uses 5 × interval by default, inclusive at the limit', () => {
    const last = startedMs + MINUTE;
    const at = (nowMs: number) =>
      cycleHealth({
        nowMs,
        lastSuccessMs: last,
        startedMs,
        intervalMs: MINUTE,
      });
    expect(DEFAULT_MAX_INTERVALS).toBe(5);
    expect(at(last + 5 * MINUTE).healthy).toBe(true);
    const stalled = at(last + 5 * MINUTE + 1);
    expect(stalled.healthy).toBe(false);
    expect(stalled.reasons).toEqual([
      'last successful cycle 300.001s ago, more than 5 × interval (300s)',
    ]);
  });

  it('measures from the start when no cycle has succeeded yet', () => {
    const report = cycleHealth({
      nowMs: startedMs + 3 * MINUTE + 1,
      lastSuccessMs: undefined,
      startedMs,
      intervalMs: MINUTE,
      maxIntervals: 3,
    });
    expect(report).toEqual(
      unhealthy(
        'no successful cycle since start 180.001s ago, more than 3 × interval (180s)',
      ),
    );
  });

  it('is healthy iff the age is at most maxIntervals × interval (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.option(fc.integer({ min: 0, max: 2 ** 40 }), { nil: undefined }),
        fc.integer({ min: -(2 ** 36), max: 2 ** 36 }),
        fc.integer({ min: 1, max: 24 * 60 * MINUTE }),
        fc.integer({ min: 1, max: 20 }),
        (startedMs, lastSuccessMs, offsetMs, intervalMs, maxIntervals) => {
          const since = lastSuccessMs ?? startedMs;
          const nowMs = since + offsetMs;
          const report = cycleHealth({
            nowMs,
            lastSuccessMs,
            startedMs,
            intervalMs,
            maxIntervals,
          });
          const expected = nowMs - since <= maxIntervals * intervalMs;
          expect(report.healthy).toBe(expected);
          expect(report.reasons.length).toBe(expected ? 0 : 1);
        },
      ),
    );
  });
});

describe('combineHealth', () => {
  it('is healthy when all are, and lists every failing reason otherwise', () => {
    expect(combineHealth()).toEqual(healthy);
    expect(combineHealth(healthy, healthy)).toEqual(healthy);
    expect(combineHealth(unhealthy('a'), healthy, unhealthy('b', 'c'))).toEqual(
      {
        healthy: false,
        reasons: ['a', 'b', 'c'],
      },
    );
  });
});

describe('leaderCycleHealth', () => {
  it('keeps a standby healthy however long it waits', () => {
    expect(
      leaderCycleHealth({
        nowMs: 100 * MINUTE,
        leadingSinceMs: undefined,
        lastSuccessMs: undefined,
        intervalMs: MINUTE,
      }),
    ).toEqual(healthy);
  });

  it('judges a leader from when it took the lead, not by an earlier term', () => {
    const input = {
      leadingSinceMs: 50 * MINUTE,
      lastSuccessMs: 10 * MINUTE,
      intervalMs: MINUTE,
    };
    expect(leaderCycleHealth({ ...input, nowMs: 55 * MINUTE })).toEqual(
      healthy,
    );
    expect(leaderCycleHealth({ ...input, nowMs: 56 * MINUTE }).healthy).toBe(
      false,
    );
    expect(
      leaderCycleHealth({
        ...input,
        lastSuccessMs: 55 * MINUTE,
        nowMs: 59 * MINUTE,
      }),
    ).toEqual(healthy);
  });
});
