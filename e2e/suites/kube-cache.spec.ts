import {
  CoreV1Event,
  type CoreV1Api,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import {
  kubeConnectionOf,
  kubeWatch,
  ListWatchCache,
  type CacheEvent,
  type WatchLike,
} from '@tandem/kube';
import { controlPlaneValue, isLocalCluster } from '../harness/cluster-env.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { waitFor } from '../harness/wait.ts';

const { kube, namespace: currentNamespace } = useTestNamespace('kube-cache');
let namespace: string;
beforeAll(() => {
  namespace = currentNamespace();
});

/**
 * The caches' own watch (`kubeWatch`) with a switch: `cut()` aborts the live watch request (the cache sees
 * a dropped connection) and holds every new one until `restore()`, so a test can change
 * the cluster while the cache is blind. Records the query of every watch request.
 */
class SwitchableWatch implements WatchLike {
  readonly requests: Record<string, unknown>[] = [];
  private readonly inner: WatchLike;
  private live: { abort(): void } | undefined;
  private liveMuted: { muted: boolean } | undefined;
  private liveDone: ((err: unknown) => void) | undefined;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;

  constructor(config: KubeConfig) {
    this.inner = kubeWatch(kubeConnectionOf(config));
  }

  async watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<{ abort(): void }> {
    await this.gate;
    this.requests.push({ ...query });
    const muted = { muted: false };
    const controller = await this.inner.watch(
      path,
      query,
      (phase, apiObj) => {
        if (!muted.muted) callback(phase, apiObj);
      },
      done,
    );
    this.live = controller;
    this.liveMuted = muted;
    this.liveDone = done;
    return controller;
  }

  /** The live request stays open but its events are swallowed: a watch gone silent. */
  mute(): void {
    if (this.liveMuted !== undefined) this.liveMuted.muted = true;
  }

  /** The live request ends as a dropped connection does: `done` with an error, then closed. */
  cut(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
    this.liveDone?.(new Error('connection cut by the test'));
    this.live?.abort();
    this.live = undefined;
    this.liveDone = undefined;
  }

  restore(): void {
    this.open();
  }
}

interface Recorded<T extends KubernetesObject> {
  cache: ListWatchCache<T>;
  watch: SwitchableWatch;
  events: string[];
}

function startCache<T extends KubernetesObject>(
  resource: string,
  list: () => Promise<KubernetesListObject<T>>,
  staleAfterMs?: number,
): Recorded<T> {
  const watch = new SwitchableWatch(kube.config);
  const cache = new ListWatchCache<T>({
    path: `/api/v1/namespaces/${namespace}/${resource}`,
    list,
    watch,
    backoff: { initialMs: 200, maxMs: 2_000, factor: 2, jitter: 0.2 },
    staleAfterMs,
  });
  const events: string[] = [];
  cache.onEvent((event: CacheEvent<T>) =>
    events.push(`${event.type} ${event.object.metadata?.name ?? '?'}`),
  );
  return { cache, watch, events };
}

/** Waits until the cache holds exactly what the API server lists (names and resourceVersions). */
async function waitForConvergence<T extends KubernetesObject>(
  cache: ListWatchCache<T>,
  list: () => Promise<KubernetesListObject<T>>,
): Promise<void> {
  const snapshot = (items: KubernetesObject[]) =>
    items
      .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`)
      .sort()
      .join(',');
  await waitFor(
    'the cache to hold exactly what the API server lists',
    async () =>
      snapshot(cache.list()) === snapshot((await list()).items)
        ? true
        : undefined,
    { timeoutMs: 30_000 },
    async () =>
      `cache [${snapshot(cache.list())}] vs server [${snapshot((await list()).items)}]`,
  );
}

function waitForEvents(events: string[], expected: string[]): Promise<true> {
  return waitFor(
    `cache events ${expected.join(', ')}`,
    async () => (expected.every((e) => events.includes(e)) ? true : undefined),
    { timeoutMs: 30_000 },
    async () => `events so far: ${events.join(', ') || 'none'}`,
  );
}

const configMap = (name: string, value: string): V1ConfigMap => ({
  metadata: { name },
  data: { value },
});

describe('ListWatchCache against the API server', () => {
  let core: CoreV1Api;
  beforeAll(() => {
    core = kube.core;
  });
  const listConfigMaps = () => core.listNamespacedConfigMap({ namespace });

  it('sees ConfigMaps being created, updated and deleted', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: configMap('before-start', '1'),
    });
    const { cache, events } = startCache(`configmaps`, listConfigMaps);
    try {
      await cache.start();
      expect(cache.hasSynced).toBe(true);
      expect(cache.lastSyncTime).toBeInstanceOf(Date);
      expect(cache.get('before-start', namespace)?.data).toEqual({
        value: '1',
      });
      expect(events).toContain('add before-start');

      await core.createNamespacedConfigMap({
        namespace,
        body: configMap('alpha', '1'),
      });
      await waitForEvents(events, ['add alpha']);
      await core.replaceNamespacedConfigMap({
        namespace,
        name: 'alpha',
        body: configMap('alpha', '2'),
      });
      await waitForEvents(events, ['update alpha']);
      expect(cache.get('alpha', namespace)?.data).toEqual({ value: '2' });
      await core.deleteNamespacedConfigMap({ namespace, name: 'alpha' });
      await waitForEvents(events, ['delete alpha']);
      expect(cache.get('alpha', namespace)).toBeUndefined();
      expect(events.filter((e) => e.endsWith(' alpha'))).toEqual([
        'add alpha',
        'update alpha',
        'delete alpha',
      ]);
      await waitForConvergence(cache, listConfigMaps);
    } finally {
      await cache.stop();
    }
  });

  it('resumes a dropped watch from the last resourceVersion without losing an event', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: configMap('drop-update', '1'),
    });
    await core.createNamespacedConfigMap({
      namespace,
      body: configMap('drop-delete', '1'),
    });
    const { cache, watch, events } = startCache(`configmaps`, listConfigMaps);
    try {
      await cache.start();
      await waitFor('the first watch request', async () =>
        watch.requests.length >= 1 ? true : undefined,
      );
      await core.createNamespacedConfigMap({
        namespace,
        body: configMap('drop-marker', '1'),
      });
      await waitForEvents(events, ['add drop-marker']);
      const resumeFrom = cache.status().resourceVersion;

      watch.cut();
      const requestsBefore = watch.requests.length;
      await core.createNamespacedConfigMap({
        namespace,
        body: configMap('drop-create', '1'),
      });
      await core.replaceNamespacedConfigMap({
        namespace,
        name: 'drop-update',
        body: configMap('drop-update', '2'),
      });
      await core.deleteNamespacedConfigMap({ namespace, name: 'drop-delete' });
      expect(cache.get('drop-create', namespace)).toBeUndefined();
      watch.restore();

      await waitForEvents(events, [
        'add drop-create',
        'update drop-update',
        'delete drop-delete',
      ]);
      await waitForConvergence(cache, listConfigMaps);
      expect(watch.requests[requestsBefore]?.['resourceVersion']).toBe(
        resumeFrom,
      );
      expect(cache.status()).toMatchObject({ lists: 1, goneRelists: 0 });
      expect(cache.get('drop-update', namespace)?.data).toEqual({ value: '2' });
    } finally {
      await cache.stop();
    }
  });

  it('restarts a watch that went silent and catches up from the last resourceVersion', async () => {
    const { cache, watch, events } = startCache(
      'configmaps',
      listConfigMaps,
      3_000,
    );
    try {
      await cache.start();
      await waitFor('the first watch request', async () =>
        watch.requests.length >= 1 ? true : undefined,
      );
      await core.createNamespacedConfigMap({
        namespace,
        body: configMap('silent-before', '1'),
      });
      await waitForEvents(events, ['add silent-before']);
      const lastSeen = cache.status().resourceVersion;
      const restartsBefore = cache.status().staleRestarts;
      const requestsBefore = watch.requests.length;

      watch.mute();
      await core.createNamespacedConfigMap({
        namespace,
        body: configMap('silent-during', '1'),
      });
      await waitForEvents(events, ['add silent-during']);
      expect(cache.status().staleRestarts).toBeGreaterThan(restartsBefore);
      expect(watch.requests[requestsBefore]?.['resourceVersion']).toBe(
        lastSeen,
      );
      expect(cache.status()).toMatchObject({ lists: 1, goneRelists: 0 });
      await waitForConvergence(cache, listConfigMaps);
    } finally {
      await cache.stop();
    }
  });

  // ConfigMaps are served from the API server's watch cache, which keeps answering old
  // resourceVersions after an etcd compaction. Events have no watch cache (the API
  // server's default), so their watch goes to etcd and a compaction really yields 410.
  const itLocal = isLocalCluster() ? it : it.skip;
  itLocal(
    'relists after 410 Gone (etcd compacted while the watch was down) and emits what changed',
    async () => {
      const listEvents = () => core.listNamespacedEvent({ namespace });
      const event = (name: string, message: string): CoreV1Event => ({
        metadata: { name },
        involvedObject: { kind: 'ConfigMap', name: 'x', namespace },
        reason: 'Test',
        message,
        type: 'Normal',
      });
      for (const name of ['gone-keep', 'gone-update', 'gone-delete'])
        await core.createNamespacedEvent({
          namespace,
          body: event(name, 'v1'),
        });
      const { cache, watch, events } = startCache<CoreV1Event>(
        'events',
        listEvents,
      );
      try {
        await cache.start();
        await waitFor('the first watch request', async () =>
          watch.requests.length >= 1 ? true : undefined,
        );
        const oldVersion = cache.status().resourceVersion;

        watch.cut();
        await core.deleteNamespacedEvent({ namespace, name: 'gone-delete' });
        await core.replaceNamespacedEvent({
          namespace,
          name: 'gone-update',
          body: event('gone-update', 'v2'),
        });
        await core.createNamespacedEvent({
          namespace,
          body: event('gone-new', 'v1'),
        });
        const revision = await compactEtcd();
        expect(Number(revision)).toBeGreaterThan(Number(oldVersion));
        watch.restore();

        await waitFor(
          'a relist after 410 Gone',
          async () => (cache.status().goneRelists >= 1 ? true : undefined),
          { timeoutMs: 30_000 },
          async () => JSON.stringify(cache.status()),
        );
        await waitForConvergence(cache, listEvents);
        expect(events.slice(3).sort()).toEqual(
          ['add gone-new', 'delete gone-delete', 'update gone-update'].sort(),
        );
        expect(cache.get('gone-delete', namespace)).toBeUndefined();
        expect(cache.get('gone-update', namespace)?.message).toBe('v2');
        expect(cache.status().lists).toBe(2);
      } finally {
        await cache.stop();
      }
    },
  );
});

/** Compacts etcd up to its current revision through the gRPC gateway; returns the revision. */
async function compactEtcd(): Promise<string> {
  const etcd = controlPlaneValue('TANDEM_CP_ETCD_URL');
  const range = await fetch(`${etcd}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: 'AA==' }),
  });
  const revision = ((await range.json()) as { header: { revision: string } })
    .header.revision;
  const compaction = await fetch(`${etcd}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision, physical: true }),
  });
  if (!compaction.ok)
    throw new Error(
      `etcd compaction failed: ${compaction.status} ${await compaction.text()}`,
    );
  return revision;
}
