import { NamespacedMap } from './namespaced-map.js';

describe('NamespacedMap', () => {
  it('finds the entries of one namespace in insertion order, as filtering the map would', () => {
    const map = new NamespacedMap<number>();
    map.set('a/x', 1).set('b/y', 2).set('a/z', 3).set('a/x', 4);
    expect([...map.inNamespace('a')]).toEqual([
      ['a/x', 4],
      ['a/z', 3],
    ]);
    expect([...map.inNamespace('b')]).toEqual([['b/y', 2]]);
    expect([...map.inNamespace('c')]).toEqual([]);
  });

  it('forgets deleted and cleared entries in the namespace view too', () => {
    const map = new NamespacedMap<number>();
    map.set('a/x', 1).set('a/y/with=labels', 2).set('b/y', 3);
    expect(map.delete('a/x')).toBe(true);
    expect(map.delete('a/missing')).toBe(false);
    expect([...map.inNamespace('a')]).toEqual([['a/y/with=labels', 2]]);
    map.clear();
    expect(map.size).toBe(0);
    expect([...map.inNamespace('b')]).toEqual([]);
  });
});
