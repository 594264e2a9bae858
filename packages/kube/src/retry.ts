import { setTimeout as sleep } from 'node:timers/promises';
import {
  backoffDelayMs,
  DEFAULT_BACKOFF,
  type BackoffOptions,
} from './backoff.js';

/**
 * Runs `task` until it resolves, handing each failure to `onError` and waiting
 * `backoffDelayMs` before the next attempt; an abort of `signal` ends the wait and the
 * retries. Resolves true once `task` succeeded, false when aborted first; never rejects.
 */
export async function retryUntilDone(
  task: () => Promise<unknown>,
  {
    signal,
    onError,
    backoff = DEFAULT_BACKOFF,
  }: {
    signal: AbortSignal;
    onError: (error: unknown) => void;
    backoff?: BackoffOptions;
  },
): Promise<boolean> {
  for (let attempt = 1; !signal.aborted; attempt += 1) {
    try {
      await task();
      return true;
    } catch (error) {
      onError(error);
      await sleep(backoffDelayMs(attempt, Math.random(), backoff), undefined, {
        signal,
      }).catch(() => undefined);
    }
  }
  return false;
}
