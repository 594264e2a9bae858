/**
 * At most one event a key (a VPA's container) an interval: a container in a crash loop at
 * its cap is OOM-killed every few minutes (the kubelet's back-off tops out at 5 min), and a
 * warning each time would bury the VPA's other events. Entries older than the interval are
 * dropped as keys pass, so the map holds only the keys of the last interval.
 */
export class EventRateLimit {
  /** Key → when it last passed; in insertion order, which is time order (see `allow`). */
  private readonly passed = new Map<string, number>();

  constructor(readonly intervalMs: number) {}

  /** Whether an event for `key` may be written at `nowMs`; when it may, the time is kept. */
  allow(key: string, nowMs: number): boolean {
    this.forgetBefore(nowMs - this.intervalMs);
    const last = this.passed.get(key);
    if (last !== undefined && nowMs - last < this.intervalMs) return false;
    // Deleted first so that re-setting moves the key to the end: the order stays by time.
    this.passed.delete(key);
    this.passed.set(key, nowMs);
    return true;
  }

  /** How many keys are held (for tests: the map does not grow without bound). */
  get size(): number {
    return this.passed.size;
  }

  private forgetBefore(cutoffMs: number): void {
    for (const [key, atMs] of this.passed) {
      if (atMs > cutoffMs) return;
      this.passed.delete(key);
    }
  }
}
