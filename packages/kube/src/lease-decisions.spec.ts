import { V1MicroTime } from '@kubernetes/client-node';
import {
  acquiredLeaseSpec,
  DEFAULT_LEADER_ELECTION_TIMINGS,
  leaseAvailability,
  leaseHolder,
  releasedLeaseSpec,
  stepDownReason,
  timeMs,
  validateTimings,
} from './lease-decisions.js';

const T0 = Date.parse('2026-11-22T00:00:00.000Z');
const held = (holder: string, renewedAt: number, seconds = 15) => ({
  holderIdentity: holder,
  leaseDurationSeconds: seconds,
  acquireTime: new V1MicroTime(renewedAt - 60_000),
  renewTime: new V1MicroTime(renewedAt),
  leaseTransitions: 3,
});

describe('leaseAvailability', () => {
  it('is free without a spec, without a holder or with an empty (released) holder', () => {
    expect(leaseAvailability(undefined, 'me', T0)).toBe('free');
    expect(leaseAvailability({}, 'me', T0)).toBe('free');
    expect(
      leaseAvailability({ ...held('x', T0), holderIdentity: '' }, 'me', T0),
    ).toBe('free');
  });

  it('is held by me when I am the holder, whatever the times', () => {
    expect(leaseAvailability(held('me', T0 - 3_600_000), 'me', T0)).toBe(
      'held-by-me',
    );
  });

  it('is held by another until renewTime + leaseDurationSeconds, expired from then on', () => {
    expect(leaseAvailability(held('other', T0), 'me', T0 + 14_999)).toBe(
      'held-by-other',
    );
    expect(leaseAvailability(held('other', T0), 'me', T0 + 15_000)).toBe(
      'expired',
    );
  });

  it('reads times deserialized as strings (client-node leaves MicroTime as a string)', () => {
    const spec = {
      holderIdentity: 'other',
      leaseDurationSeconds: 15,
      renewTime: '2026-11-22T00:00:00.000000Z',
    };
    expect(leaseAvailability(spec as never, 'me', T0 + 1_000)).toBe(
      'held-by-other',
    );
    expect(leaseAvailability(spec as never, 'me', T0 + 16_000)).toBe('expired');
  });

  it('falls back to acquireTime, and counts a holder without any time as expired', () => {
    expect(
      leaseAvailability(
        {
          holderIdentity: 'other',
          leaseDurationSeconds: 15,
          acquireTime: new V1MicroTime(T0),
        },
        'me',
        T0 + 1_000,
      ),
    ).toBe('held-by-other');
    expect(
      leaseAvailability(
        { holderIdentity: 'other', leaseDurationSeconds: 15 },
        'me',
        T0,
      ),
    ).toBe('expired');
  });
});

describe('acquiredLeaseSpec / releasedLeaseSpec', () => {
  it('an acquisition sets holder, both times, the duration and counts a transition', () => {
    const spec = acquiredLeaseSpec(
      held('other', T0 - 20_000),
      'me',
      T0,
      15_000,
    );
    expect(spec.holderIdentity).toBe('me');
    expect(spec.leaseDurationSeconds).toBe(15);
    expect(timeMs(spec.acquireTime)).toBe(T0);
    expect(timeMs(spec.renewTime)).toBe(T0);
    expect(spec.leaseTransitions).toBe(4);
  });

  it('a renewal keeps acquireTime and the transition count', () => {
    const spec = acquiredLeaseSpec(held('me', T0 - 2_000), 'me', T0, 15_000);
    expect(timeMs(spec.acquireTime)).toBe(T0 - 62_000);
    expect(timeMs(spec.renewTime)).toBe(T0);
    expect(spec.leaseTransitions).toBe(3);
  });

  it('a new Lease starts with zero transitions', () => {
    expect(
      acquiredLeaseSpec(undefined, 'me', T0, 15_000).leaseTransitions,
    ).toBe(0);
  });

  it('writes MicroTime with microseconds, as the API server requires', () => {
    const json = JSON.parse(
      JSON.stringify(acquiredLeaseSpec(undefined, 'me', T0, 15_000)),
    );
    expect(json.renewTime).toBe('2026-11-22T00:00:00.000000Z');
  });

  it('a release clears the holder so the Lease reads as free at once', () => {
    const spec = releasedLeaseSpec(held('me', T0), T0);
    expect(leaseHolder(spec)).toBeUndefined();
    expect(spec.leaseDurationSeconds).toBe(1);
    expect(spec.leaseTransitions).toBe(3);
    expect(leaseAvailability(spec, 'successor', T0)).toBe('free');
  });
});

describe('stepDownReason', () => {
  const base = { lastRenewMs: T0, nowMs: T0 + 2_000, renewDeadlineMs: 10_000 };

  it('keeps leading after a recent renewal', () => {
    expect(
      stepDownReason({ ...base, availability: 'held-by-me' }),
    ).toBeUndefined();
    expect(
      stepDownReason({ ...base, availability: undefined }),
    ).toBeUndefined();
  });

  it('steps down at once when another identity validly holds the Lease', () => {
    expect(stepDownReason({ ...base, availability: 'held-by-other' })).toBe(
      'lease-taken',
    );
  });

  it('steps down once renewals have failed for renewDeadline', () => {
    expect(
      stepDownReason({ ...base, availability: undefined, nowMs: T0 + 9_999 }),
    ).toBeUndefined();
    expect(
      stepDownReason({ ...base, availability: undefined, nowMs: T0 + 10_000 }),
    ).toBe('renew-deadline-exceeded');
  });
});

describe('validateTimings', () => {
  it('accepts the upstream defaults 15 s / 10 s / 2 s', () => {
    expect(DEFAULT_LEADER_ELECTION_TIMINGS).toEqual({
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(() =>
      validateTimings(DEFAULT_LEADER_ELECTION_TIMINGS),
    ).not.toThrow();
  });

  it('rejects impossible timings with the rule they break', () => {
    expect(() =>
      validateTimings({
        leaseDurationMs: 10_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
      }),
    ).toThrow('must be greater than renewDeadlineMs');
    expect(() =>
      validateTimings({
        leaseDurationMs: 15_000,
        renewDeadlineMs: 2_400,
        retryPeriodMs: 2_000,
      }),
    ).toThrow('must be greater than 1.2 × retryPeriodMs');
    expect(() =>
      validateTimings({
        leaseDurationMs: 15_500,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
      }),
    ).toThrow('whole number of seconds');
  });
});
