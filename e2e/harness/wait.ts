import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/** A condition that did not hold in time; the message says what and what was seen last. */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
}

/**
 * Polls `probe` until it returns a value other than undefined, and returns that value.
 * `probe` may also throw: the error counts as "not yet" (an API object that does not exist
 * yet, an aggregated API still warming up) and is reported if time runs out. `observe`
 * describes the last state seen, so a timeout explains itself without a debugger.
 */
export async function waitFor<T>(
  description: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 60_000, intervalMs = 250 }: WaitOptions = {},
  observe?: () => Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'the condition never held';
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
      if (observe !== undefined) lastProblem = `last seen: ${await observe()}`;
    } catch (error) {
      lastProblem = `last error: ${(error as Error).message}`;
    }
    if (Date.now() >= deadline) {
      throw new WaitTimeoutError(
        `timed out after ${timeoutMs / 1000}s waiting for ${description}; ${lastProblem}`,
      );
    }
    await sleep(intervalMs);
  }
}
