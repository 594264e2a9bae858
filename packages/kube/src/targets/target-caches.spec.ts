import { plainConnection } from '../connection/kube-connection.js';
import type { WatchLike } from '../list-watch-cache.js';
import { ColdCacheError } from '../first-lists.js';
import { targetCaches, type TargetCaches } from './target-caches.js';

/** A watch that stays open and quiet until it is aborted. */
const quietWatch: WatchLike = {
  watch: async () => ({ abort: () => undefined }),
};

const deployment = (name: string) => ({
  metadata: { namespace: 'team-a', name, resourceVersion: '1' },
  spec: { selector: { matchLabels: { app: name } } },
});

describe('targetCaches', () => {
  let lists: string[];
  let respond: (path: string) => Promise<unknown>;
  let caches: TargetCaches;
  let errors: string[];

  beforeEach(() => {
    lists = [];
    errors = [];
    // Lists hold `web`; of single objects the API server has `fresh` (created after the
    // list) and nothing else.
    respond = async (path) => {
      if (path.includes('?'))
        return {
          metadata: { resourceVersion: '1' },
          items: [deployment('web')],
        };
      if (path.endsWith('/fresh')) return deployment('fresh');
      throw Object.assign(new Error(`GET ${path}: not found`), { code: 404 });
    };
    caches = targetCaches({
      connection: plainConnection('http://127.0.0.1:1'),
      get: (path) => {
        lists.push(path);
        return respond(path);
      },
      namespace: 'team-a',
      onError: (kind, error) => errors.push(`${kind}: ${String(error)}`),
      syncTimeoutMs: 200,
      watch: quietWatch,
      readMisses: true,
    });
  });
  afterEach(() => caches.stop());

  it('starts no cache before a kind is looked up', () => {
    expect(lists).toEqual([]);
    expect(caches.hasSynced()).toBe(true);
  });

  it('lists a kind once, on its first lookup, and answers from the cache after', async () => {
    await expect(caches.read('Deployment', 'team-a', 'web')).resolves.toEqual({
      ownerReferences: undefined,
      selector: { matchLabels: { app: 'web' } },
    });
    await expect(
      caches.read('Deployment', 'team-a', 'missing'),
    ).resolves.toBeUndefined();
    expect(lists).toEqual([
      '/apis/apps/v1/namespaces/team-a/deployments?limit=500',
      '/apis/apps/v1/namespaces/team-a/deployments/missing',
    ]);
    expect(caches.hasSynced()).toBe(true);
  });

  it('reads a controller its cache has not got yet from the API server (created after the list)', async () => {
    await expect(caches.read('Deployment', 'team-a', 'fresh')).resolves.toEqual(
      {
        ownerReferences: undefined,
        selector: { matchLabels: { app: 'fresh' } },
      },
    );
    expect(lists.at(-1)).toBe(
      '/apis/apps/v1/namespaces/team-a/deployments/fresh',
    );
  });

  it('rejects with the read’s error when that read fails other than 404', async () => {
    await caches.synced('Deployment');
    respond = async () => {
      throw Object.assign(new Error('GET: overloaded'), { code: 429 });
    };
    await expect(caches.read('Deployment', 'team-a', 'other')).rejects.toThrow(
      'overloaded',
    );
  });

  it('gives up waiting for a first list that keeps failing, and is not ready meanwhile', async () => {
    respond = async () => {
      throw new Error('forbidden');
    };
    await expect(caches.read('CronJob', 'team-a', 'nightly')).rejects.toThrow(
      'the CronJob cache has not completed its first list within 0.2s',
    );
    expect(caches.hasSynced()).toBe(false);
    expect(errors[0]).toBe('CronJob: Error: forbidden');
  });

  it('says which cache was cold, with a ColdCacheError', async () => {
    respond = async () => {
      throw new Error('overloaded');
    };
    const waiting = caches.synced('Job');
    await expect(waiting).rejects.toBeInstanceOf(ColdCacheError);
    await expect(waiting).rejects.toMatchObject({ kind: 'Job' });
  });

  it('starts a cache on request without waiting, which readiness then waits for', async () => {
    let list: (answer: unknown) => void = () => undefined;
    respond = () => new Promise((resolve) => (list = resolve));
    caches.start('ReplicaSet');
    caches.start('ReplicaSet');
    expect(lists).toEqual([
      '/apis/apps/v1/namespaces/team-a/replicasets?limit=500',
    ]);
    expect(caches.hasSynced()).toBe(false);
    list({ metadata: { resourceVersion: '1' }, items: [] });
    await caches.synced('ReplicaSet');
    expect(caches.hasSynced()).toBe(true);
  });

  it('refuses lookups once stopped', async () => {
    await caches.read('Deployment', 'team-a', 'web');
    await caches.stop();
    await expect(caches.read('Deployment', 'team-a', 'web')).rejects.toThrow(
      'the target caches were stopped',
    );
  });
});
