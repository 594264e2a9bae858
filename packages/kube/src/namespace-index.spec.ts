import type { KubernetesObject } from '@kubernetes/client-node';
import fc from 'fast-check';
import type { CacheEvent, CacheEventHandler } from './list-watch-cache.js';
import { indexByNamespace } from './namespace-index.js';

const pod = (
  namespace: string,
  name: string,
  version = '1',
): KubernetesObject => ({
  metadata: { namespace, name, resourceVersion: version },
});

function eventSource() {
  const handlers = new Set<CacheEventHandler<KubernetesObject>>();
  return {
    onEvent(handler: CacheEventHandler<KubernetesObject>) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    emit(event: CacheEvent<KubernetesObject>) {
      for (const handler of handlers) handler(event);
    },
  };
}

describe('indexByNamespace', () => {
  it('answers one namespace from the events: adds, updates and deletes', () => {
    const source = eventSource();
    const index = indexByNamespace(source);
    source.emit({ type: 'add', object: pod('shop', 'web-1') });
    source.emit({ type: 'add', object: pod('shop', 'web-2') });
    source.emit({ type: 'add', object: pod('other', 'web-1') });
    source.emit({
      type: 'update',
      object: pod('shop', 'web-1', '2'),
      previous: pod('shop', 'web-1'),
    });
    source.emit({ type: 'delete', object: pod('shop', 'web-2') });
    expect(index.list('shop')).toEqual([pod('shop', 'web-1', '2')]);
    expect(index.list('other')).toEqual([pod('other', 'web-1')]);
    expect(index.list('nowhere')).toEqual([]);
  });

  it('changes a namespace revision on every change there, never back to an earlier one', () => {
    const source = eventSource();
    const index = indexByNamespace(source);
    expect(index.revision('shop')).toBe(0);
    const seen = new Set<number>([0]);
    const step = (event: CacheEvent<KubernetesObject>) => {
      const other = index.revision('other');
      source.emit(event);
      expect(index.revision('other')).toBe(other);
      return index.revision('shop');
    };
    const kept = (revision: number) => {
      expect(seen.has(revision)).toBe(false);
      seen.add(revision);
    };
    kept(step({ type: 'add', object: pod('shop', 'web-1') }));
    kept(
      step({
        type: 'update',
        object: pod('shop', 'web-1', '2'),
        previous: pod('shop', 'web-1'),
      }),
    );
    const before = index.revision('shop');
    // Deleting what the index does not hold changes nothing.
    expect(step({ type: 'delete', object: pod('shop', 'web-9') })).toBe(before);
    // Emptied: 0, as a namespace never seen (both hold nothing).
    expect(step({ type: 'delete', object: pod('shop', 'web-1', '2') })).toBe(0);
    kept(step({ type: 'add', object: pod('shop', 'web-1') }));
  });

  it('keeps a revision that moves exactly when the namespace changes, for any events', () => {
    const event = fc.record({
      type: fc.constantFrom('add', 'update', 'delete'),
      namespace: fc.constantFrom('shop', 'other'),
      name: fc.constantFrom('web-1', 'web-2'),
      version: fc.constantFrom('1', '2'),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        const source = eventSource();
        const index = indexByNamespace(source);
        const model = new Map<string, Map<string, KubernetesObject>>();
        const seen = new Map<string, Set<number>>();
        for (const { type, namespace, name, version } of events) {
          const object = pod(namespace, name, version);
          const objects = model.get(namespace) ?? new Map();
          model.set(namespace, objects);
          const changed = type !== 'delete' || objects.has(name);
          if (type === 'delete') objects.delete(name);
          else objects.set(name, object);
          const before = index.revision(namespace);
          source.emit(
            type === 'update'
              ? { type, object, previous: object }
              : { type, object },
          );
          const after = index.revision(namespace);
          expect(index.list(namespace)).toEqual([...objects.values()]);
          if (!changed) expect(after).toBe(before);
          else if (objects.size === 0) expect(after).toBe(0);
          else {
            const revisions = seen.get(namespace) ?? new Set([0]);
            expect(revisions.has(after)).toBe(false);
            revisions.add(after);
            seen.set(namespace, revisions);
          }
        }
      }),
    );
  });

  it('stops following the cache when closed', () => {
    const source = eventSource();
    const index = indexByNamespace(source);
    index.close();
    source.emit({ type: 'add', object: pod('shop', 'web-1') });
    expect(index.list('shop')).toEqual([]);
  });
});
