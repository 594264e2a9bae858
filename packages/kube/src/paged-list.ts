import type {
  KubernetesListObject,
  KubernetesObject,
} from '@kubernetes/client-node';
import { isGone } from './api-errors.js';
import type { GetJson } from './connection/kube-request.js';

/** client-go's pager default (k8s.io/client-go/tools/pager, `defaultPageSize`). */
export const DEFAULT_LIST_PAGE_SIZE = 500;

/**
 * How many times a list whose continue token expired starts over before the failure goes
 * to the caller (the cache's list backoff): a list that outlasts the token every time
 * (etcd compacts every 5 minutes by default) would otherwise never end.
 */
export const EXPIRED_LIST_RESTARTS = 3;

/** A page as the API server sends it (client-node's `V1ListMeta` calls `continue` `_continue`). */
interface ListPage {
  metadata?: { resourceVersion?: string; continue?: string };
  items: KubernetesObject[];
}

export interface PagedListOptions<T extends KubernetesObject> {
  get: GetJson;
  /** The collection, e.g. `/api/v1/pods`. */
  path: string;
  /** Sent with every page: the continue token is only valid for the same query. */
  fieldSelector?: string;
  /** Items a page; 0 lists the collection in one GET. */
  pageSize: number;
  /** Applied to each item of a page before the next page is read. */
  reduce: (object: KubernetesObject) => T;
}

/**
 * The whole collection, read `pageSize` items at a time with continue tokens (client-go's
 * `pager.List`), each page reduced before the next is read, so what stays in memory is the
 * reduced list and one raw page. Every page of a list is served from the snapshot of the
 * first one, so the list's resourceVersion (the page's) is the one to watch from.
 *
 * A continue token the API server no longer honours (`410 Gone`, "The provided continue
 * parameter is too old") restarts the list from the first page. client-go's pager instead
 * falls back to one unpaginated list (`FullListIfExpired`), which would hold the whole raw
 * collection at once, the very peak paging avoids; the restart is bounded
 * (`EXPIRED_LIST_RESTARTS`), then the error is the caller's.
 */
export async function pagedList<T extends KubernetesObject>({
  get,
  path,
  fieldSelector,
  pageSize,
  reduce,
}: PagedListOptions<T>): Promise<KubernetesListObject<T>> {
  for (let restarts = 0; ; restarts += 1) {
    const items: T[] = [];
    let resourceVersion: string | undefined;
    let token: string | undefined;
    try {
      do {
        const page = (await get(
          pagePath(path, fieldSelector, pageSize, token),
        )) as ListPage;
        for (const item of page.items) items.push(reduce(item));
        resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
        token = page.metadata?.continue || undefined;
      } while (token !== undefined);
    } catch (error) {
      // A 410 on the first page is no expired token; past the bound, the caller backs off.
      if (token === undefined || !isGone(error)) throw error;
      if (restarts >= EXPIRED_LIST_RESTARTS) throw error;
      continue;
    }
    return { metadata: { resourceVersion }, items };
  }
}

function pagePath(
  path: string,
  fieldSelector: string | undefined,
  pageSize: number,
  token: string | undefined,
): string {
  const query = new URLSearchParams();
  if (fieldSelector !== undefined) query.set('fieldSelector', fieldSelector);
  if (pageSize > 0) query.set('limit', String(pageSize));
  if (token !== undefined) query.set('continue', token);
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}
