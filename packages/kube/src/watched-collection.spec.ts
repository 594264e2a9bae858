import type { Server } from 'node:http';
import type { KubernetesObject } from '@kubernetes/client-node';
import { plainConnection } from './connection/kube-connection.js';
import { kubeGetJson } from './connection/kube-request.js';
import { managedObject, PagedCollection } from './paged-collection.fixtures.js';
import { standInApiServer } from './stand-in-api-server.fixtures.js';
import { until } from './lease-client.fixtures.js';
import { FakeWatch } from './watch.fixtures.js';
import { watchedCollection } from './watched-collection.js';

describe('watchedCollection against a paging API server', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers
        .splice(0)
        .map((server) => new Promise((resolve) => server.close(resolve))),
    );
  });

  async function cacheOf(
    collection: PagedCollection,
    reduce?: (object: KubernetesObject) => KubernetesObject,
  ) {
    const standIn = await standInApiServer(({ path }) =>
      collection.answer(path),
    );
    servers.push(standIn.server);
    const connection = plainConnection(standIn.url);
    const watch = new FakeWatch();
    const errors: unknown[] = [];
    const cache = watchedCollection({
      connection,
      get: kubeGetJson(connection),
      path: '/api/v1/namespaces/ns/configmaps',
      fieldSelector: 'metadata.name!=skipped',
      pageSize: 2,
      reduce,
      watch,
      onError: (error) => errors.push(error),
    });
    return { cache, watch, errors };
  }

  const objects = (count: number) =>
    Array.from({ length: count }, (_, i) => managedObject(`cm-${i}`));

  it('lists page by page and watches from the list resourceVersion with the same selector', async () => {
    const collection = new PagedCollection(objects(5), '42');
    const { cache, watch } = await cacheOf(collection);
    await cache.start();
    expect(cache.list().map((object) => object.metadata?.name)).toEqual([
      'cm-0',
      'cm-1',
      'cm-2',
      'cm-3',
      'cm-4',
    ]);
    expect(collection.seen).toEqual([
      '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%21%3Dskipped&limit=2',
      '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%21%3Dskipped&limit=2&continue=42%3A2',
      '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%21%3Dskipped&limit=2&continue=42%3A4',
    ]);
    await until(() => watch.calls.length === 1, 'a watch');
    expect(watch.last.params).toMatchObject({
      resourceVersion: '42',
      fieldSelector: 'metadata.name!=skipped',
    });
    await cache.stop();
  });

  it('restarts a list whose continue token expired (410) from the first page and ends up whole', async () => {
    const collection = new PagedCollection(objects(5), '42');
    collection.expireNext(1);
    const { cache, watch, errors } = await cacheOf(collection);
    await cache.start();
    expect(cache.list()).toHaveLength(5);
    expect(cache.status()).toMatchObject({ lists: 1, resourceVersion: '42' });
    expect(collection.seen).toHaveLength(5); // 2 pages, a 410, then 3 pages
    expect(errors).toEqual([]);
    await until(() => watch.calls.length === 1, 'a watch');
    await cache.stop();
  });

  it('hands a list that keeps expiring to the list backoff, and lists whole once it can', async () => {
    const collection = new PagedCollection(objects(5), '42');
    collection.expireNext(4); // the first list and its 3 restarts
    const { cache, errors } = await cacheOf(collection);
    await cache.start();
    expect(cache.list()).toHaveLength(5);
    expect(errors).toEqual([expect.objectContaining({ code: 410 })]);
    await cache.stop();
  });

  it('keeps listed and watched objects without managedFields by default, or what the reducer keeps', async () => {
    const collection = new PagedCollection(objects(3), '42');
    const { cache, watch } = await cacheOf(collection, (object) => ({
      metadata: {
        namespace: object.metadata?.namespace,
        name: object.metadata?.name,
        labels: object.metadata?.labels,
      },
    }));
    await cache.start();
    await until(() => watch.calls.length === 1, 'a watch');
    watch.last.send('ADDED', managedObject('cm-9', '43'));
    expect(cache.get('cm-0', 'ns')).toEqual({
      metadata: { namespace: 'ns', name: 'cm-0', labels: { app: 'web' } },
    });
    expect(cache.get('cm-9', 'ns')).toEqual({
      metadata: { namespace: 'ns', name: 'cm-9', labels: { app: 'web' } },
    });
    await cache.stop();

    const { cache: plain, watch: plainWatch } = await cacheOf(
      new PagedCollection(objects(3), '42'),
    );
    await plain.start();
    await until(() => plainWatch.calls.length === 1, 'a watch');
    plainWatch.last.send('ADDED', managedObject('cm-9', '43'));
    const { managedFields, ...kept } =
      managedObject('cm-9', '43').metadata ?? {};
    expect(managedFields).toBeDefined();
    expect(plain.get('cm-9', 'ns')?.metadata).toEqual(kept);
    expect(
      plain.list().every((object) => !object.metadata?.managedFields),
    ).toBe(true);
    await plain.stop();
  });
});
