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

/** A leadership term's bounds: what a component loads when it takes the lead, and drops. */
export interface LoopTerms {
  /** Runs before the term's first cycle (e.g. loading history); a failure is retried next tick. */
  start(): Promise<void>;
  /** Runs as soon as the loop sees the lead lost (or the loop stops). */
  end(): void;
}

/**
 * Upstream's ticker: the first cycle one interval after `run`, then every interval, only
 * while leading. Each successful cycle is logged as `cycle done` with its summary and
 * duration; a failed one goes to `onFailure`, and the next interval tries again. With
 * `terms`, each time the lead is taken (a new `leadingSinceMs`) `terms.start` runs, checked
 * before and after every wait, and the term's first cycle follows at once; `terms.end` runs
 * when the lead is lost.
 */
export function cycleLoop(options: {
  intervalMs: number;
  leadership: LoopLeadership;
  cycle: (nowMs: number) => Promise<object>;
  onFailure: (error: unknown) => void;
  logger: Logger;
  terms?: LoopTerms;
}): CycleLoop {
  const { intervalMs, leadership, logger, terms } = options;
  let lastSuccessMs: number | undefined;
  /** The `leadingSinceMs` of the term whose start ran; undefined outside a term. */
  let term: number | undefined;
  /** Brings the term up to date with leadership: may a cycle run, and did a term just start? */
  const followLeadership = async (): Promise<
    'idle' | 'leading' | 'started'
  > => {
    const since = leadership.leadingSinceMs();
    if (terms === undefined) return since === undefined ? 'idle' : 'leading';
    if (term !== undefined && term !== since) {
      term = undefined;
      terms.end();
    }
    if (since === undefined) return 'idle';
    if (term === since) return 'leading';
    try {
      await terms.start();
      term = since;
      return 'started';
    } catch (error) {
      options.onFailure(error);
      return 'idle';
    }
  };
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
        // A term that starts cycles at once: its history is loaded, and a new leader's
        // recommendations need not wait another interval.
        if ((await followLeadership()) !== 'started') {
          await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
          if (signal.aborted) break;
          if ((await followLeadership()) === 'idle') continue;
        }
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
      if (term !== undefined) terms?.end();
    },
  };
}
