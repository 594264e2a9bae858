import type {
  KubernetesListObject,
  KubernetesObject,
} from '@kubernetes/client-node';
import type { KubeConnection } from './connection/kube-connection.js';
import { kubeWatch } from './connection/kube-watch.js';
import { isGone } from './api-errors.js';
import {
  backoffDelayMs,
  DEFAULT_BACKOFF,
  type BackoffOptions,
} from './backoff.js';
import { keyOf, objectKey } from './object-key.js';
import { diffRelist } from './relist-diff.js';
import { isWatchStale, stalenessCheckIntervalMs } from './staleness.js';
import { LoopStop } from './loop-stop.js';
import { withoutManagedFields } from './without-managed-fields.js';

/** A change the cache saw, from a watch event or from a relist. */
export type CacheEvent<T extends KubernetesObject> =
  | { type: 'add'; object: T }
  | { type: 'update'; object: T; previous: T }
  | { type: 'delete'; object: T };

export type CacheEventHandler<T extends KubernetesObject> = (
  event: CacheEvent<T>,
) => void;

/** Where a problem happened; the cache recovers from all of them by itself. */
export type CacheErrorContext = 'list' | 'watch' | 'handler';

/**
 * The shape of client-node's `Watch`: starts a watch request, reports each event to
 * `callback` and the end of the stream (or a failure) once to `done`. Injectable so a
 * test can observe or interrupt watches.
 */
export interface WatchLike {
  watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<{ abort(): void }>;
}

export interface ListWatchCacheOptions<T extends KubernetesObject> {
  /** API path of the collection, e.g. `/api/v1/namespaces/ns/configmaps`. */
  path: string;
  /**
   * Lists the same collection as `path` (same namespace and selectors), passing each item
   * through `reduce` as it arrives, e.g. a page at a time (see `pagedList`), so that no
   * more raw objects are held than one page.
   */
  list: (
    reduce: (object: KubernetesObject) => T,
  ) => Promise<KubernetesListObject<T>>;
  /**
   * What the cache keeps of each object, listed or watched, before it is stored or handed
   * to handlers: whatever the app reads and the cache's own metadata (name, namespace,
   * resourceVersion). Default: the object without `metadata.managedFields`
   * (`withoutManagedFields`); a reducer replaces it, so it should drop those too.
   */
  reduce?: (object: KubernetesObject) => T;
  /** Used to create the default `Watch`; not needed when `watch` is given. */
  connection?: KubeConnection;
  /** A watch replacement (tests); default `kubeWatch(connection)`. */
  watch?: WatchLike;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Server-side `timeoutSeconds` of each watch request; the watch then resumes from its
   * resourceVersion. Default 25: client-node's Watch aborts a watch that has been silent
   * for 30 s, so on a quiet collection a longer server timeout would end every watch in a
   * client-side abort, reported as an error.
   */
  watchTimeoutSeconds?: number;
  /**
   * A watch that delivers nothing, not even a bookmark, for longer than this is restarted
   * from the last seen resourceVersion. Default 90 s (the API server sends a bookmark about
   * once a minute on a quiet watch).
   */
  staleAfterMs?: number;
  /** Backoff between failed lists and failed watch starts. */
  backoff?: BackoffOptions;
  /** Called for every problem the cache recovers from; default: ignored. */
  onError?: (error: unknown, context: CacheErrorContext) => void;
  /** Called after every completed list, the first one included (`releaseMemoryAfterLists`). */
  onListed?: () => void;
  /** Clock and randomness, injectable for tests. */
  now?: () => number;
  random?: () => number;
}

/** Counters and state for health checks and tests. */
export interface ListWatchCacheStatus {
  hasSynced: boolean;
  /** When the last list completed or the last watch event (incl. bookmark) arrived. */
  lastSyncTime: Date | undefined;
  resourceVersion: string | undefined;
  /** Completed lists (the first one included). */
  lists: number;
  /** Watch requests started. */
  watches: number;
  /** Relists caused by `410 Gone`. */
  goneRelists: number;
  /** Watches restarted because they went silent. */
  staleRestarts: number;
}

type WatchEnd =
  /** `early`: closed by the server within a second, having delivered nothing. */
  | { kind: 'closed'; early: boolean }
  | { kind: 'failed'; error: unknown }
  | { kind: 'gone'; error: unknown }
  | { kind: 'stale' }
  | { kind: 'stopped' };

/**
 * An in-memory copy of one collection, kept current by list + watch. It never goes stale
 * silently: ended watches resume from the last resourceVersion, `410 Gone` relists (with
 * add/update/delete events for what changed meanwhile), silent watches are restarted and
 * failed requests are retried with capped exponential backoff.
 */
const DEFAULT_WATCH_TIMEOUT_SECONDS = 25;

export class ListWatchCache<T extends KubernetesObject> {
  private readonly objects = new Map<string, T>();
  private readonly handlers = new Set<CacheEventHandler<T>>();
  private readonly watcher: WatchLike;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly staleAfterMs: number;
  private readonly backoff: BackoffOptions;
  private readonly reduce: (object: KubernetesObject) => T;
  private resourceVersion: string | undefined;
  private synced = false;
  private lastSyncMs: number | undefined;
  private lastActivityMs = 0;
  private counters = { lists: 0, watches: 0, goneRelists: 0, staleRestarts: 0 };
  private running: Promise<void> | undefined;
  private readonly loop = new LoopStop();
  private endWatch: ((end: WatchEnd) => void) | undefined;
  private syncWaiters: {
    resolve: () => void;
    reject: (error: Error) => void;
  }[] = [];

  constructor(private readonly options: ListWatchCacheOptions<T>) {
    if (options.watch !== undefined) this.watcher = options.watch;
    else if (options.connection !== undefined)
      this.watcher = kubeWatch(options.connection);
    else throw new Error('ListWatchCache needs either connection or watch');
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.staleAfterMs = options.staleAfterMs ?? 90_000;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.reduce =
      options.reduce ?? ((object) => withoutManagedFields(object) as T);
  }

  /** Starts list + watch; resolves once the first list is in the cache. */
  start(): Promise<void> {
    if (this.loop.stopped)
      return Promise.reject(new Error('the cache was stopped'));
    if (this.running === undefined) {
      this.running = this.run().catch((error: unknown) =>
        this.report(error, 'watch'),
      );
    }
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) =>
      this.syncWaiters.push({ resolve, reject }),
    );
  }

  /** Stops the watch and every timer; resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.loop.stop();
    this.endWatch?.({ kind: 'stopped' });
    for (const waiter of this.syncWaiters.splice(0))
      waiter.reject(new Error('the cache was stopped before its first list'));
    await this.running;
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  get lastSyncTime(): Date | undefined {
    return this.lastSyncMs === undefined
      ? undefined
      : new Date(this.lastSyncMs);
  }

  status(): ListWatchCacheStatus {
    return {
      hasSynced: this.synced,
      lastSyncTime: this.lastSyncTime,
      resourceVersion: this.resourceVersion,
      ...this.counters,
    };
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  /** The object `namespace/name` (`name` alone when cluster-scoped), in client-node's order. */
  get(name: string, namespace?: string): T | undefined {
    return this.objects.get(keyOf(namespace, name));
  }

  /** Registers a handler for add/update/delete; returns a function that removes it. */
  onEvent(handler: CacheEventHandler<T>): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /**
   * Ends the current watch as if the connection had dropped; the cache resumes from the
   * last seen resourceVersion. For tests and for callers that know the connection is bad.
   */
  restartWatch(): void {
    this.endWatch?.({ kind: 'closed', early: false });
  }

  private async run(): Promise<void> {
    let needList = true;
    let failures = 0;
    while (!this.loop.stopped) {
      if (needList) {
        try {
          await this.relist();
          needList = false;
          failures = 0;
        } catch (error) {
          if (this.loop.stopped) return;
          this.report(error, 'list');
          failures += 1;
          await this.loop.sleep(
            backoffDelayMs(failures, this.random(), this.backoff),
          );
        }
        continue;
      }
      const end = await this.watchOnce();
      switch (end.kind) {
        case 'stopped':
          return;
        case 'gone':
          this.counters.goneRelists += 1;
          needList = true;
          failures = 0;
          break;
        case 'stale':
          this.counters.staleRestarts += 1;
          break;
        case 'closed':
          // A server that closes every watch at once must not make us spin.
          if (end.early) {
            failures += 1;
            await this.loop.sleep(
              backoffDelayMs(failures, this.random(), this.backoff),
            );
          } else failures = 0;
          break;
        case 'failed':
          this.report(end.error, 'watch');
          failures += 1;
          await this.loop.sleep(
            backoffDelayMs(failures, this.random(), this.backoff),
          );
          break;
      }
    }
  }

  private async relist(): Promise<void> {
    const result = await this.options.list(this.reduce);
    if (this.loop.stopped) return;
    const diff = diffRelist(this.objects, result.items);
    this.objects.clear();
    for (const [key, object] of diff.next) this.objects.set(key, object);
    this.resourceVersion = result.metadata?.resourceVersion;
    this.counters.lists += 1;
    this.lastSyncMs = this.now();
    for (const object of diff.deleted) this.emit({ type: 'delete', object });
    for (const object of diff.added) this.emit({ type: 'add', object });
    for (const { previous, object } of diff.updated)
      this.emit({ type: 'update', object, previous });
    this.options.onListed?.();
    if (!this.synced) {
      this.synced = true;
      for (const waiter of this.syncWaiters.splice(0)) waiter.resolve();
    }
  }

  /** One watch request, from the current resourceVersion until it ends for any reason. */
  private async watchOnce(): Promise<WatchEnd> {
    let ended = false;
    let controller: { abort(): void } | undefined;
    const result = new Promise<WatchEnd>((resolve) => {
      this.endWatch = (end) => {
        if (ended) return;
        ended = true;
        resolve(end);
      };
    });
    const endThis = this.endWatch;

    this.lastActivityMs = this.now();
    const startedMs = this.lastActivityMs;
    let delivered = false;
    const staleTimer = setInterval(() => {
      if (isWatchStale(this.lastActivityMs, this.now(), this.staleAfterMs))
        endThis?.({ kind: 'stale' });
    }, stalenessCheckIntervalMs(this.staleAfterMs));
    staleTimer.unref();

    const { labelSelector, fieldSelector } = this.options;
    this.counters.watches += 1;
    this.watcher
      .watch(
        this.options.path,
        {
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds:
            this.options.watchTimeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_SECONDS,
          labelSelector,
          fieldSelector,
        },
        (phase, apiObj) => {
          if (ended) return;
          delivered = true;
          this.handleWatchEvent(phase, apiObj, (end) => endThis?.(end));
        },
        (err) => {
          if (err === null || err === undefined)
            endThis?.({
              kind: 'closed',
              early: !delivered && this.now() - startedMs < 1_000,
            });
          else if (isGone(err)) endThis?.({ kind: 'gone', error: err });
          else endThis?.({ kind: 'failed', error: err });
        },
      )
      .then(
        (c) => {
          controller = c;
          if (ended) c.abort();
        },
        (error: unknown) =>
          endThis?.(
            isGone(error) ? { kind: 'gone', error } : { kind: 'failed', error },
          ),
      );

    const end = await result;
    clearInterval(staleTimer);
    controller?.abort();
    return end;
  }

  private handleWatchEvent(
    phase: string,
    apiObj: unknown,
    end: (end: WatchEnd) => void,
  ): void {
    this.lastActivityMs = this.now();
    if (phase === 'ERROR') {
      const status = apiObj as { code?: number; message?: string };
      const error = Object.assign(
        new Error(`watch ERROR event: ${status?.message ?? 'unknown'}`),
        { code: status?.code },
      );
      end(isGone(error) ? { kind: 'gone', error } : { kind: 'failed', error });
      return;
    }
    const rv = (apiObj as KubernetesObject | undefined)?.metadata
      ?.resourceVersion;
    if (phase === 'BOOKMARK') {
      if (rv !== undefined) this.resourceVersion = rv;
      this.lastSyncMs = this.lastActivityMs;
      return;
    }
    if (phase !== 'ADDED' && phase !== 'MODIFIED' && phase !== 'DELETED')
      return;
    let object: T;
    let key: string;
    try {
      object = this.reduce(apiObj as KubernetesObject);
      key = objectKey(object);
    } catch (error) {
      this.report(error, 'watch');
      return;
    }
    const previous = this.objects.get(key);
    if (phase === 'DELETED') {
      this.objects.delete(key);
      if (previous !== undefined) this.emit({ type: 'delete', object });
    } else {
      this.objects.set(key, object);
      if (previous === undefined) this.emit({ type: 'add', object });
      else this.emit({ type: 'update', object, previous });
    }
    if (rv !== undefined) this.resourceVersion = rv;
    this.lastSyncMs = this.lastActivityMs;
  }

  private emit(event: CacheEvent<T>): void {
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (error) {
        this.report(error, 'handler');
      }
    }
  }

  private report(error: unknown, context: CacheErrorContext): void {
    try {
      this.options.onError?.(error, context);
    } catch {
      // A failing error reporter must not stop the cache.
    }
  }
}
