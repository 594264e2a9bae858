import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/** Resolves once `condition` holds, checking every 10 ms; rejects after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(10);
  }
}
