/**
 * A map that holds at most `maxEntries` keys and forgets the least recently used one first,
 * as the `github.com/golang/groupcache/lru` cache behind client-go's event correlator does:
 * `get` and `set` both count as a use.
 */
export class LruCache<V> {
  // A Map iterates in insertion order: re-inserting a key on each use keeps the least
  // recently used key first.
  private readonly entries = new Map<string, V>();

  constructor(readonly maxEntries: number) {
    if (!(maxEntries >= 1))
      throw new RangeError(
        `an LRU cache needs room for a key, got ${maxEntries}`,
      );
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries)
      for (const oldest of this.entries.keys()) {
        this.entries.delete(oldest);
        break;
      }
  }

  get size(): number {
    return this.entries.size;
  }
}
