import { V1MicroTime, type V1LeaseSpec } from '@kubernetes/client-node';

/** Who may take a Lease right now, from the point of view of `identity`. */
export type LeaseAvailability =
  | 'held-by-me'
  | 'free'
  | 'expired'
  | 'held-by-other';

/** Timings of leader election, all in milliseconds. */
export interface LeaderElectionTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** The upstream VPA recommender's defaults: 15 s / 10 s / 2 s. */
export const DEFAULT_LEADER_ELECTION_TIMINGS: LeaderElectionTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** client-go's JitterFactor: candidates retry after retryPeriod × [1, 1.2). */
export const RETRY_JITTER_FACTOR = 1.2;

/** Throws when the timings cannot work (the same rules as client-go). */
export function validateTimings(t: LeaderElectionTimings): void {
  if (t.leaseDurationMs % 1000 !== 0 || t.leaseDurationMs < 1000)
    throw new Error(
      `leaseDurationMs must be a whole number of seconds (a Lease stores seconds), got ${t.leaseDurationMs}`,
    );
  if (t.leaseDurationMs <= t.renewDeadlineMs)
    throw new Error(
      `leaseDurationMs (${t.leaseDurationMs}) must be greater than renewDeadlineMs (${t.renewDeadlineMs})`,
    );
  if (t.renewDeadlineMs <= RETRY_JITTER_FACTOR * t.retryPeriodMs)
    throw new Error(
      `renewDeadlineMs (${t.renewDeadlineMs}) must be greater than ${RETRY_JITTER_FACTOR} × retryPeriodMs (${t.retryPeriodMs})`,
    );
  if (t.retryPeriodMs <= 0)
    throw new Error(`retryPeriodMs must be positive, got ${t.retryPeriodMs}`);
}

/** A MicroTime from the API (a string once deserialized by client-node) as epoch ms. */
export function timeMs(value: Date | string | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The holder of a Lease, undefined when none (an empty identity means released). */
export function leaseHolder(spec: V1LeaseSpec | undefined): string | undefined {
  const holder = spec?.holderIdentity;
  return holder === undefined || holder === null || holder === ''
    ? undefined
    : holder;
}

/**
 * Whether `identity` may take the Lease at `nowMs`: it is free (no holder), expired (last
 * renewal, or acquisition, older than leaseDurationSeconds), held by `identity` already, or
 * validly held by someone else. A Lease with a holder but no times counts as expired.
 */
export function leaseAvailability(
  spec: V1LeaseSpec | undefined,
  identity: string,
  nowMs: number,
): LeaseAvailability {
  const holder = leaseHolder(spec);
  if (holder === undefined) return 'free';
  if (holder === identity) return 'held-by-me';
  const renewed =
    timeMs(spec?.renewTime as Date | string | undefined) ??
    timeMs(spec?.acquireTime as Date | string | undefined);
  const durationMs = (spec?.leaseDurationSeconds ?? 0) * 1000;
  if (renewed === undefined || renewed + durationMs <= nowMs) return 'expired';
  return 'held-by-other';
}

/**
 * The spec `identity` writes to acquire or renew: a renewal keeps acquireTime and the
 * transition count; an acquisition sets acquireTime and counts one more transition.
 */
export function acquiredLeaseSpec(
  current: V1LeaseSpec | undefined,
  identity: string,
  nowMs: number,
  leaseDurationMs: number,
): V1LeaseSpec {
  const now = new V1MicroTime(nowMs);
  const renewing = leaseHolder(current) === identity;
  const transitions = current?.leaseTransitions ?? 0;
  return {
    ...current,
    holderIdentity: identity,
    leaseDurationSeconds: Math.round(leaseDurationMs / 1000),
    acquireTime:
      renewing && current?.acquireTime !== undefined
        ? new V1MicroTime(timeMs(current.acquireTime as Date | string) ?? nowMs)
        : now,
    renewTime: now,
    leaseTransitions:
      renewing || current === undefined ? transitions : transitions + 1,
  };
}

/**
 * The spec a leader writes on a clean stop, as client-go does: no holder, a 1 s duration,
 * so any candidate takes over at its next retry.
 */
export function releasedLeaseSpec(
  current: V1LeaseSpec | undefined,
  nowMs: number,
): V1LeaseSpec {
  const now = new V1MicroTime(nowMs);
  return {
    ...current,
    holderIdentity: '',
    leaseDurationSeconds: 1,
    acquireTime: now,
    renewTime: now,
  };
}

/** Why a leader must stop leading, or undefined when it may go on. */
export type StepDownReason = 'lease-taken' | 'renew-deadline-exceeded';

/**
 * A leader steps down at once when it sees someone else validly holding the Lease, and
 * when its last successful renewal is renewDeadline or more in the past.
 */
export function stepDownReason(input: {
  availability: LeaseAvailability | undefined;
  lastRenewMs: number;
  nowMs: number;
  renewDeadlineMs: number;
}): StepDownReason | undefined {
  if (input.availability === 'held-by-other') return 'lease-taken';
  if (input.nowMs - input.lastRenewMs >= input.renewDeadlineMs)
    return 'renew-deadline-exceeded';
  return undefined;
}
