import { setTimeout as delay } from 'node:timers/promises';

/**
 * The stop switch of a background loop (the cache's list/watch loop, the elector's
 * campaign): `sleep` waits between attempts but returns at once when the loop is stopped,
 * so `stop()` never has to wait out a backoff or a retry period.
 */
export class LoopStop {
  private readonly controller = new AbortController();

  get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  stop(): void {
    this.controller.abort();
  }

  /** Resolves after `ms`, or as soon as the loop is stopped (at once if it already is). */
  sleep(ms: number): Promise<void> {
    // The only rejection is the abort, which is exactly "stop sleeping".
    return delay(ms, undefined, { signal: this.controller.signal }).catch(
      () => undefined,
    );
  }
}
