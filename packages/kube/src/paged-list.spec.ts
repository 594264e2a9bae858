import type { KubernetesObject } from '@kubernetes/client-node';
import fc from 'fast-check';
import {
  EXPIRED_LIST_RESTARTS,
  pagedList,
  type PagedListOptions,
} from './paged-list.js';
import { managedObject, PagedCollection } from './paged-collection.fixtures.js';
import { withoutManagedFields } from './without-managed-fields.js';

const names = (items: readonly KubernetesObject[]) =>
  items.map((item) => item.metadata?.name);

const objects = (count: number) =>
  Array.from({ length: count }, (_, i) => managedObject(`cm-${i}`));

function listOf(
  collection: PagedCollection,
  more: Partial<PagedListOptions<KubernetesObject>> = {},
) {
  return pagedList({
    get: collection.get,
    path: '/api/v1/configmaps',
    pageSize: 2,
    reduce: withoutManagedFields,
    ...more,
  });
}

describe('pagedList', () => {
  it('follows continue tokens page by page, with the limit and the field selector on every page', async () => {
    const collection = new PagedCollection(objects(5), '42');
    const list = await listOf(collection, { fieldSelector: 'type!=x y' });
    expect(names(list.items)).toEqual(names(collection.items));
    expect(list.metadata?.resourceVersion).toBe('42');
    expect(collection.seen).toEqual([
      '/api/v1/configmaps?fieldSelector=type%21%3Dx+y&limit=2',
      '/api/v1/configmaps?fieldSelector=type%21%3Dx+y&limit=2&continue=42%3A2',
      '/api/v1/configmaps?fieldSelector=type%21%3Dx+y&limit=2&continue=42%3A4',
    ]);
  });

  it('lists in one GET without a limit when the page size is 0', async () => {
    const collection = new PagedCollection(objects(5), '42');
    const list = await listOf(collection, { pageSize: 0 });
    expect(list.items).toHaveLength(5);
    expect(collection.seen).toEqual(['/api/v1/configmaps']);
  });

  it('reduces each page before the next one is read', async () => {
    const collection = new PagedCollection(objects(4), '42');
    const trace: string[] = [];
    await listOf(collection, {
      get: (path) => {
        trace.push(`GET ${path.includes('continue') ? 'next' : 'first'}`);
        return collection.get(path);
      },
      reduce: (object) => {
        trace.push(`reduce ${object.metadata?.name}`);
        return object;
      },
    });
    expect(trace).toEqual([
      'GET first',
      'reduce cm-0',
      'reduce cm-1',
      'GET next',
      'reduce cm-2',
      'reduce cm-3',
    ]);
  });

  it('restarts from the first page when a continue token expires (410), keeping nothing of the first attempt', async () => {
    const collection = new PagedCollection(objects(5), '42');
    collection.expireNext(1);
    const listed = listOf(collection);
    // The collection moves on while the expired list restarts.
    collection.items = objects(6).slice(1);
    collection.resourceVersion = '57';
    const list = await listed;
    expect(names(list.items)).toEqual(names(collection.items));
    expect(list.metadata?.resourceVersion).toBe('57');
    expect(collection.seen.map((path) => path.split('?')[1])).toEqual([
      'limit=2',
      'limit=2&continue=42%3A2', // 410: too old
      'limit=2',
      'limit=2&continue=57%3A2',
      'limit=2&continue=57%3A4',
    ]);
  });

  it(`gives up after ${EXPIRED_LIST_RESTARTS} restarts with the 410, for the cache's list backoff`, async () => {
    const collection = new PagedCollection(objects(5), '42');
    collection.expireNext(Infinity);
    await expect(listOf(collection)).rejects.toMatchObject({ code: 410 });
    expect(
      collection.seen.filter((path) => !path.includes('continue')),
    ).toHaveLength(EXPIRED_LIST_RESTARTS + 1);
  });

  it('does not restart on other errors', async () => {
    let gets = 0;
    await expect(
      pagedList({
        get: async () => {
          gets += 1;
          throw Object.assign(new Error('forbidden'), { code: 403 });
        },
        path: '/api/v1/configmaps',
        pageSize: 2,
        reduce: withoutManagedFields,
      }),
    ).rejects.toThrow('forbidden');
    expect(gets).toBe(1);
  });

  it('lists every item exactly once, in order, for any collection and page size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 40 }),
        fc.nat({ max: 12 }),
        async (count, pageSize) => {
          const collection = new PagedCollection(objects(count), '7');
          const list = await listOf(collection, { pageSize });
          expect(names(list.items)).toEqual(names(collection.items));
          expect(
            list.items.every((item) => !item.metadata?.managedFields),
          ).toBe(true);
          const pages =
            pageSize === 0 ? 1 : Math.max(1, Math.ceil(count / pageSize));
          expect(collection.seen).toHaveLength(pages);
        },
      ),
    );
  });
});
