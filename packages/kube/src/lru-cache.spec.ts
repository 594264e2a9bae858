import fc from 'fast-check';
import { LruCache } from './lru-cache.js';

describe('LruCache', () => {
  it('forgets the least recently used key first; a get counts as a use', () => {
    const cache = new LruCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([
      1,
      undefined,
      3,
    ]);
  });

  it('refuses a bound that holds no key', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
  });

  it('never holds more than its bound, and always the keys used last', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.string({ maxLength: 2 }), { maxLength: 60 }),
        (bound, keys) => {
          const cache = new LruCache<string>(bound);
          for (const key of keys) cache.set(key, key);
          expect(cache.size).toBeLessThanOrEqual(bound);
          const lastUsed = [...new Set([...keys].reverse())].slice(0, bound);
          for (const key of lastUsed) expect(cache.get(key)).toBe(key);
        },
      ),
    );
  });
});
