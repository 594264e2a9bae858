import type {
  KubernetesListObject,
  KubernetesObject,
} from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { ListWatchCache, type CacheEvent } from './list-watch-cache.js';
import { FakeWatch } from './watch.fixtures.js';

const cm = (name: string, rv: string): KubernetesObject => ({
  metadata: { namespace: 'ns', name, resourceVersion: rv },
});

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (condition()) return;
    await sleep(5);
  }
  throw new Error(`never happened: ${what}`);
}

function setup(
  lists: (() => KubernetesListObject<KubernetesObject>)[],
  staleAfterMs = 60_000,
) {
  const watch = new FakeWatch();
  let listCalls = 0;
  const errors: string[] = [];
  /** What the cache held when each `onListed` came: it follows the stored list. */
  const listed: string[][] = [];
  const cache: ListWatchCache<KubernetesObject> = new ListWatchCache({
    path: '/api/v1/namespaces/ns/configmaps',
    list: async () => {
      const next = lists[Math.min(listCalls, lists.length - 1)];
      listCalls += 1;
      if (next === undefined) throw new Error('no list scripted');
      return next();
    },
    watch,
    staleAfterMs,
    backoff: { initialMs: 1, maxMs: 5, factor: 2, jitter: 0.1 },
    onError: (error, context) =>
      errors.push(`${context}: ${(error as Error).message}`),
    onListed: () =>
      listed.push(cache.list().map((object) => object.metadata?.name ?? '')),
  });
  const events: string[] = [];
  cache.onEvent((e: CacheEvent<KubernetesObject>) =>
    events.push(
      `${e.type} ${e.object.metadata?.name}@${e.object.metadata?.resourceVersion}`,
    ),
  );
  return {
    cache,
    watch,
    events,
    errors,
    listed,
    listCalls: () => listCalls,
  };
}

const listOf =
  (rv: string, ...items: KubernetesObject[]) =>
  () => ({
    metadata: { resourceVersion: rv },
    items,
  });

describe('ListWatchCache (scripted watch)', () => {
  it('lists, then watches from the list resourceVersion with bookmarks and a server timeout', async () => {
    const { cache, watch, events } = setup([listOf('10', cm('a', '5'))]);
    await cache.start();
    expect(cache.hasSynced).toBe(true);
    expect(cache.lastSyncTime).toBeInstanceOf(Date);
    expect(cache.get('a', 'ns')).toEqual(cm('a', '5'));
    expect(cache.get('a')).toBeUndefined(); // `name` alone is a cluster-scoped key
    await until(() => watch.calls.length === 1, 'a watch');
    expect(watch.last.params).toMatchObject({
      resourceVersion: '10',
      allowWatchBookmarks: true,
      timeoutSeconds: 25,
    });
    watch.last.send('ADDED', cm('b', '11'));
    watch.last.send('MODIFIED', cm('a', '12'));
    watch.last.send('DELETED', cm('b', '13'));
    expect(events).toEqual([
      'add a@5',
      'add b@11',
      'update a@12',
      'delete b@13',
    ]);
    expect(cache.list()).toEqual([cm('a', '12')]);
    await cache.stop();
    expect(watch.last.aborted).toBe(true);
  });

  it('resumes an ended watch from the last event or bookmark resourceVersion, without relisting', async () => {
    const { cache, watch, listCalls } = setup([listOf('10')]);
    await cache.start();
    await until(() => watch.calls.length === 1, 'a watch');
    watch.last.send('ADDED', cm('a', '11'));
    watch.last.send('BOOKMARK', { metadata: { resourceVersion: '15' } });
    watch.last.end(null);
    await until(() => watch.calls.length === 2, 'a resumed watch');
    expect(watch.last.params['resourceVersion']).toBe('15');
    watch.last.end(new Error('socket hang up'));
    await until(() => watch.calls.length === 3, 'a watch after a failure');
    expect(watch.last.params['resourceVersion']).toBe('15');
    expect(listCalls()).toBe(1);
    await cache.stop();
  });

  it('relists on a 410 ERROR event and emits what changed meanwhile', async () => {
    const { cache, watch, events, listed } = setup([
      listOf('10', cm('kept', '1'), cm('changed', '2'), cm('gone', '3')),
      listOf('50', cm('kept', '1'), cm('changed', '40'), cm('new', '45')),
    ]);
    await cache.start();
    await until(() => watch.calls.length === 1, 'a watch');
    watch.last.send('ERROR', {
      kind: 'Status',
      code: 410,
      message: 'too old resource version',
    });
    await until(() => watch.calls.length === 2, 'a watch after the relist');
    expect(watch.calls[0]?.aborted).toBe(true);
    expect(watch.last.params['resourceVersion']).toBe('50');
    expect(events.slice(3)).toEqual([
      'delete gone@3',
      'add new@45',
      'update changed@40',
    ]);
    expect(cache.status()).toMatchObject({ lists: 2, goneRelists: 1 });
    expect(listed).toEqual([
      ['kept', 'changed', 'gone'],
      ['kept', 'changed', 'new'],
    ]);
    await cache.stop();
  });

  it('relists when the watch request itself fails with 410', async () => {
    const { cache, watch } = setup([listOf('10'), listOf('20')]);
    await cache.start();
    await until(() => watch.calls.length === 1, 'a watch');
    watch.last.end(Object.assign(new Error('Gone'), { statusCode: 410 }));
    await until(() => watch.calls.length === 2, 'a watch after the relist');
    expect(watch.last.params['resourceVersion']).toBe('20');
    await cache.stop();
  });

  it('restarts a watch that delivers nothing for longer than the staleness limit', async () => {
    const { cache, watch } = setup([listOf('10')], 100);
    await cache.start();
    await until(() => watch.calls.length === 2, 'a restarted watch');
    expect(watch.calls[0]?.aborted).toBe(true);
    expect(watch.last.params['resourceVersion']).toBe('10');
    expect(cache.status().staleRestarts).toBeGreaterThanOrEqual(1);
    await cache.stop();
  });

  it('keeps a watch that receives bookmarks', async () => {
    const { cache, watch } = setup([listOf('10')], 150);
    await cache.start();
    for (let i = 0; i < 10; i++) {
      await sleep(40);
      watch.last.send('BOOKMARK', {
        metadata: { resourceVersion: `${11 + i}` },
      });
    }
    expect(watch.calls.length).toBe(1);
    await cache.stop();
  });

  it('retries a failing list with backoff and start() resolves once it succeeds', async () => {
    let attempts = 0;
    const { cache, errors } = setup([
      () => {
        attempts += 1;
        if (attempts < 3)
          throw Object.assign(new Error('HTTP 503'), { code: 503 });
        return { metadata: { resourceVersion: '1' }, items: [cm('a', '1')] };
      },
    ]);
    await cache.start();
    expect(attempts).toBe(3);
    expect(errors).toEqual(['list: HTTP 503', 'list: HTTP 503']);
    expect(cache.list()).toHaveLength(1);
    await cache.stop();
  });

  it('survives a throwing event handler', async () => {
    const { cache, watch, errors, events } = setup([listOf('10')]);
    cache.onEvent(() => {
      throw new Error('handler bug');
    });
    await cache.start();
    await until(() => watch.calls.length === 1, 'a watch');
    watch.last.send('ADDED', cm('a', '11'));
    expect(events).toEqual(['add a@11']);
    expect(errors).toEqual(['handler: handler bug']);
    expect(cache.get('a', 'ns')).toBeDefined();
    await cache.stop();
  });

  it('rejects start() when stopped before the first list', async () => {
    const { cache } = setup([
      () => {
        throw new Error('down');
      },
    ]);
    const started = cache.start();
    await cache.stop();
    await expect(started).rejects.toThrow('stopped before its first list');
  });
});

describe('ListWatchCache watch closes', () => {
  it('backs off instead of spinning when the server closes a watch at once without events', async () => {
    const watch = new FakeWatch();
    const cache = new ListWatchCache<KubernetesObject>({
      path: '/api/v1/configmaps',
      list: async () => ({ metadata: { resourceVersion: '10' }, items: [] }),
      watch,
      backoff: { initialMs: 1_000, maxMs: 1_000, factor: 1, jitter: 0 },
    });
    await cache.start();
    await until(() => watch.calls.length === 1, 'a watch');
    // A close after delivering something resumes at once.
    watch.last.send('BOOKMARK', { metadata: { resourceVersion: '11' } });
    let closedAt = Date.now();
    watch.last.end(null);
    await until(() => watch.calls.length === 2, 'a resumed watch');
    expect(Date.now() - closedAt).toBeLessThan(800);
    // An immediate empty close waits for the backoff.
    closedAt = Date.now();
    watch.last.end(null);
    await until(() => watch.calls.length === 3, 'a watch after backoff');
    expect(Date.now() - closedAt).toBeGreaterThanOrEqual(990);
    await cache.stop();
  });
});

describe('ListWatchCache reduce on arrival', () => {
  const withManagedFields = (name: string, rv: string): KubernetesObject => ({
    ...cm(name, rv),
    metadata: {
      ...cm(name, rv).metadata,
      labels: { app: 'web', team: 'shop' },
      managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
    },
  });

  async function started(
    reduce?: (object: KubernetesObject) => KubernetesObject,
  ) {
    const watch = new FakeWatch();
    const cache = new ListWatchCache<KubernetesObject>({
      path: '/api/v1/namespaces/ns/configmaps',
      list: async (reduceItem) => ({
        metadata: { resourceVersion: '10' },
        items: [withManagedFields('a', '5')].map(reduceItem),
      }),
      reduce,
      watch,
    });
    const events: CacheEvent<KubernetesObject>[] = [];
    cache.onEvent((event) => events.push(event));
    await cache.start();
    await until(() => watch.calls.length === 1, 'a watch');
    watch.last.send('ADDED', withManagedFields('b', '11'));
    watch.last.send('MODIFIED', withManagedFields('a', '12'));
    watch.last.send('DELETED', withManagedFields('b', '13'));
    await cache.stop();
    const handed = events.flatMap((event) =>
      event.type === 'update' ? [event.object, event.previous] : [event.object],
    );
    return { cache, handed };
  }

  it('drops managedFields by default from listed and watched objects, keeping the rest', async () => {
    const { cache, handed } = await started();
    expect(handed).toHaveLength(5);
    for (const object of [...handed, ...cache.list()])
      expect(object.metadata).not.toHaveProperty('managedFields');
    expect(cache.get('a', 'ns')).toEqual({
      metadata: {
        namespace: 'ns',
        name: 'a',
        resourceVersion: '12',
        labels: { app: 'web', team: 'shop' },
      },
    });
  });

  it('keeps only what the reducer returns, for listed and watched objects alike', async () => {
    const { cache, handed } = await started((object) => ({
      metadata: {
        namespace: object.metadata?.namespace,
        name: object.metadata?.name,
        resourceVersion: object.metadata?.resourceVersion,
      },
    }));
    expect(cache.list()).toEqual([cm('a', '12')]);
    expect(handed).toEqual([
      cm('a', '5'),
      cm('b', '11'),
      cm('a', '12'),
      cm('a', '5'),
      cm('b', '13'),
    ]);
  });
});
