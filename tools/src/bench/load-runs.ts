import {
  closedLoopLoad,
  fixedRateLoad,
  quantile,
  type FixedRateLoadOptions,
  type LoadRequest,
} from './fixed-rate-load.js';
import { mediansOfRuns } from './measure.js';
import type { Measured } from './report.js';

export interface LoadRuns {
  /** How many runs the figures are the median of. */
  runs: number;
  runMs: number;
  /** Unmeasured load before the runs, at the same rate: the JIT and heap settle. */
  warmUpMs?: number;
  /** What answers, for the message when a request fails. */
  what: string;
  /** CPU time the server has used so far (ms), read before and after each run. */
  serverCpuMs: () => number | Promise<number>;
}

/**
 * `runs` runs of an open-loop load at a fixed rate: the median p50 and p99 with their
 * spread, and the server's CPU per answered request (robust to contention, unlike the
 * latencies). A failed request fails the benchmark.
 */
export async function fixedRateRuns(
  load: Omit<FixedRateLoadOptions, 'durationMs'>,
  { runs, runMs, warmUpMs = 0, what, serverCpuMs }: LoadRuns,
): Promise<{ p50: Measured; p99: Measured; cpu: Measured }> {
  if (warmUpMs > 0) await fixedRateLoad({ ...load, durationMs: warmUpMs });
  return mediansOfRuns(runs, async () => {
    const cpuBefore = await serverCpuMs();
    const result = await fixedRateLoad({ ...load, durationMs: runMs });
    if (result.failures > 0)
      throw new Error(
        `${result.failures} ${what} requests failed at ${load.rate} requests/s`,
      );
    return {
      cpu: ((await serverCpuMs()) - cpuBefore) / result.latenciesMs.length,
      p50: quantile(result.latenciesMs, 0.5),
      p99: quantile(result.latenciesMs, 0.99),
    };
  });
}

/**
 * `runs` runs of a closed-loop load (`connections` requests in flight): the median rate the
 * server sustained, with its spread. A failed request fails the benchmark.
 */
export async function closedLoopRuns(
  load: LoadRequest,
  { runs, runMs, what }: Omit<LoadRuns, 'warmUpMs' | 'serverCpuMs'>,
): Promise<Measured> {
  const { rate } = await mediansOfRuns(runs, async () => {
    const result = await closedLoopLoad({ ...load, durationMs: runMs });
    if (result.failures > 0)
      throw new Error(
        `${result.failures} ${what} requests failed under the closed-loop load`,
      );
    return { rate: result.achievedRate };
  });
  return rate;
}
