import type { KubernetesObject } from '@kubernetes/client-node';
import fc from 'fast-check';
import { objectKey } from './object-key.js';
import { diffRelist } from './relist-diff.js';

const cm = (name: string, rv: string): KubernetesObject => ({
  metadata: { namespace: 'ns', name, resourceVersion: rv },
});

const mapOf = (...objects: KubernetesObject[]) =>
  new Map(objects.map((o) => [objectKey(o), o]));

describe('diffRelist', () => {
  it('reports added, updated (resourceVersion changed) and deleted objects', () => {
    const before = mapOf(cm('kept', '1'), cm('changed', '2'), cm('gone', '3'));
    const diff = diffRelist(before, [
      cm('kept', '1'),
      cm('changed', '9'),
      cm('new', '10'),
    ]);
    expect(diff.added).toEqual([cm('new', '10')]);
    expect(diff.updated).toEqual([
      { previous: cm('changed', '2'), object: cm('changed', '9') },
    ]);
    expect(diff.deleted).toEqual([cm('gone', '3')]);
    expect([...diff.next.keys()].sort()).toEqual([
      'ns/changed',
      'ns/kept',
      'ns/new',
    ]);
  });

  it('reports everything as added into an empty cache, and nothing for an identical list', () => {
    const items = [cm('a', '1'), cm('b', '2')];
    expect(diffRelist(new Map(), items).added).toEqual(items);
    const same = diffRelist(mapOf(...items), items);
    expect([same.added, same.updated, same.deleted]).toEqual([[], [], []]);
  });

  it('replaying the diff on the old content gives exactly the new list', () => {
    const object = fc
      .tuple(
        fc.constantFrom('a', 'b', 'c', 'd', 'e'),
        fc.constantFrom('1', '2', '3'),
      )
      .map(([name, rv]) => cm(name, rv));
    const unique = fc.uniqueArray(object, {
      selector: (o) => o.metadata?.name,
    });
    fc.assert(
      fc.property(unique, unique, (oldItems, newItems) => {
        const state = mapOf(...oldItems);
        const diff = diffRelist(state, newItems);
        for (const o of diff.deleted) state.delete(objectKey(o));
        for (const o of diff.added) {
          expect(state.has(objectKey(o))).toBe(false);
          state.set(objectKey(o), o);
        }
        for (const { previous, object: o } of diff.updated) {
          expect(state.get(objectKey(o))).toBe(previous);
          state.set(objectKey(o), o);
        }
        expect(state).toEqual(mapOf(...newItems));
      }),
    );
  });
});
