import { plainConnection } from './connection/kube-connection.js';
import { clusterCaches, type ClusterCaches } from './cluster-caches.js';
import { ColdCacheError } from './first-lists.js';
import type { WatchLike } from './list-watch-cache.js';

/** A watch that stays open and quiet until it is aborted. */
const quietWatch: WatchLike = {
  watch: async () => ({ abort: () => undefined }),
};

const emptyList = { metadata: { resourceVersion: '1' }, items: [] };

describe('clusterCaches', () => {
  let lists: string[];
  let failing: Set<string>;
  let errors: string[];
  let caches: ClusterCaches | undefined;

  const build = (namespace: string | undefined) => {
    caches = clusterCaches({
      connection: plainConnection('http://127.0.0.1:1'),
      namespace,
      get: async (path) => {
        lists.push(path);
        if ([...failing].some((part) => path.includes(part)))
          throw new Error('forbidden');
        return emptyList;
      },
      onError: (cache, error) => errors.push(`${cache}: ${String(error)}`),
      watch: quietWatch,
      targetSyncTimeoutMs: 100,
    });
    return caches;
  };

  beforeEach(() => {
    lists = [];
    failing = new Set();
    errors = [];
  });
  afterEach(() => caches?.stop());

  it('lists each collection in the scope, with its field selector, once started', async () => {
    const built = build('team-a');
    built.collection('vpa');
    built.collection('pod', 'status.phase!=Pending');
    built.collection('limitrange');
    built.collection('node');
    expect(lists).toEqual([]);
    await built.start();
    expect(lists.sort()).toEqual([
      '/api/v1/namespaces/team-a/limitranges?limit=500',
      '/api/v1/namespaces/team-a/pods?fieldSelector=status.phase%21%3DPending&limit=500',
      // Nodes belong to no namespace: listed whole.
      '/api/v1/nodes?limit=500',
      '/apis/autoscaling.k8s.io/v1/namespaces/team-a/verticalpodautoscalers?limit=500',
    ]);
    expect(built.hasSynced()).toBe(true);
  });

  it('lists cluster-wide without a namespace', async () => {
    const built = build(undefined);
    built.collection('event', 'reason=Evicted');
    await built.start();
    expect(lists).toEqual([
      '/api/v1/events?fieldSelector=reason%3DEvicted&limit=500',
    ]);
  });

  it('is not synced while a collection or a target cache lacks its first list, and names the cache in errors', async () => {
    failing.add('replicasets');
    const built = build('team-a');
    built.collection('vpa');
    await built.start();
    expect(built.hasSynced()).toBe(true);
    built.targets.warmUp(['Deployment']);
    await expect(built.targets.cachesSynced(['ReplicaSet'])).rejects.toThrow(
      ColdCacheError,
    );
    expect(built.hasSynced()).toBe(false);
    expect(errors[0]).toBe('target-cache-ReplicaSet: Error: forbidden');
  });
});
