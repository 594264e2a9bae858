import { setTimeout as sleep } from 'node:timers/promises';
import { leaderCycleHealth, type HealthReport } from './health.js';
import type { Logger } from './logger.js';

/** What the loop asks of leader election (`@tandem/kube`'s `Leadership`). */
export interface LoopLeadership {
  isLeading(): boolean;
  leadingSinceMs(): number | undefined;
}

export interface CycleLoop {
  /** Liveness for the ops server: the leader's cycles judged, a standby healthy. */
  health(): HealthReport;
  /** Runs cycles until `signal` aborts; resolves after the cycle under way ends. */
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Upstream's ticker: the first cycle one interval after `run`, then every interval, only
 * while leading. Each successful cycle is logged as `cycle done` with its summary and
 * duration; a failed one goes to `onFailure`, and the next interval tries again.
 */
export function cycleLoop(options: {
  intervalMs: number;
  leadership: LoopLeadership;
  cycle: (nowMs: number) => Promise<object>;
  onFailure: (error: unknown) => void;
  logger: Logger;
}): CycleLoop {
  const { intervalMs, leadership, logger } = options;
  let lastSuccessMs: number | undefined;
  return {
    health: () =>
      leaderCycleHealth({
        nowMs: Date.now(),
        leadingSinceMs: leadership.leadingSinceMs(),
        lastSuccessMs,
        intervalMs,
      }),
    async run(signal) {
      while (!signal.aborted) {
        await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
        if (signal.aborted) break;
        if (!leadership.isLeading()) continue;
        const nowMs = Date.now();
        try {
          const summary = await options.cycle(nowMs);
          lastSuccessMs = Date.now();
          logger.info(
            { ...summary, durationMs: lastSuccessMs - nowMs },
            'cycle done',
          );
        } catch (error) {
          options.onFailure(error);
        }
      }
    },
  };
}
