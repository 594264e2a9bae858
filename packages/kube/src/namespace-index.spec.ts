import type { KubernetesObject } from '@kubernetes/client-node';
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

  it('stops following the cache when closed', () => {
    const source = eventSource();
    const index = indexByNamespace(source);
    index.close();
    source.emit({ type: 'add', object: pod('shop', 'web-1') });
    expect(index.list('shop')).toEqual([]);
  });
});
