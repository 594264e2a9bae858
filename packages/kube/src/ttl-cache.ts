/**
 * Values that are good for a fixed time after they were stored. Expired entries are
 * dropped as they are met and whenever a value is stored, so keys that are never read
 * again (a deleted VPA's target) do not pile up.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresMs: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresMs > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    const nowMs = this.now();
    for (const [other, entry] of this.entries)
      if (entry.expiresMs <= nowMs) this.entries.delete(other);
    this.entries.set(key, { value, expiresMs: nowMs + this.ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
