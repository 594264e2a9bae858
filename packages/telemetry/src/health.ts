/** What /healthz and /readyz report: healthy, or not with the reasons why. */
export interface HealthReport {
  readonly healthy: boolean;
  readonly reasons: readonly string[];
}

export const healthy: HealthReport = Object.freeze({
  healthy: true,
  reasons: Object.freeze([]),
});

export function unhealthy(...reasons: string[]): HealthReport {
  return { healthy: false, reasons };
}

/** Healthy only when every report is; the reasons of the failing ones, in order. */
export function combineHealth(...reports: HealthReport[]): HealthReport {
  const reasons = reports.flatMap((report) => report.reasons);
  return reports.every((report) => report.healthy)
    ? healthy
    : { healthy: false, reasons };
}

export interface CycleHealthInput {
  /** Now, in milliseconds since the epoch. */
  readonly nowMs: number;
  /**
   * End of the last successful cycle (ms since the epoch), or undefined when no cycle
   * has succeeded yet.
   */
  readonly lastSuccessMs: number | undefined;
  /**
   * When the loop started (ms since the epoch): before the first success the age is
   * measured from here, so a fresh process gets the same grace as a running one.
   */
  readonly startedMs: number;
  /** The loop interval in milliseconds (e.g. the recommender's 1 min). */
  readonly intervalMs: number;
  /** How many intervals may pass without a successful cycle. Upstream uses 5. */
  readonly maxIntervals?: number;
}

/** Default stall factor: upstream's recommender fails its health check after 5 × interval. */
export const DEFAULT_MAX_INTERVALS = 5;

/**
 * The recommender's /healthz rule: unhealthy when the last successful cycle (or the
 * start, before the first one) is older than `maxIntervals × intervalMs`.
 * Healthy iff `age ≤ maxIntervals × intervalMs`. Pure.
 */
export function cycleHealth(input: CycleHealthInput): HealthReport {
  const maxIntervals = input.maxIntervals ?? DEFAULT_MAX_INTERVALS;
  const limitMs = maxIntervals * input.intervalMs;
  const since = input.lastSuccessMs ?? input.startedMs;
  const ageMs = input.nowMs - since;
  if (ageMs <= limitMs) {
    return healthy;
  }
  const what =
    input.lastSuccessMs === undefined
      ? 'no successful cycle since start'
      : 'last successful cycle';
  return unhealthy(
    `${what} ${formatSeconds(ageMs)} ago, more than ${maxIntervals} × interval (${formatSeconds(limitMs)})`,
  );
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}

/**
 * `cycleHealth` for a component under leader election: a standby (`leadingSinceMs`
 * undefined) runs no cycles and is healthy; a leader is judged from when it took the lead,
 * so neither the wait for the Lease nor a cycle of an earlier term counts.
 */
export function leaderCycleHealth(input: {
  nowMs: number;
  leadingSinceMs: number | undefined;
  lastSuccessMs: number | undefined;
  intervalMs: number;
}): HealthReport {
  const { leadingSinceMs, lastSuccessMs } = input;
  if (leadingSinceMs === undefined) return healthy;
  return cycleHealth({
    nowMs: input.nowMs,
    startedMs: leadingSinceMs,
    lastSuccessMs:
      lastSuccessMs !== undefined && lastSuccessMs >= leadingSinceMs
        ? lastSuccessMs
        : undefined,
    intervalMs: input.intervalMs,
  });
}
