import { Watch, type V1Pod } from '@kubernetes/client-node';
import type { KubeClients } from './kube.ts';

/** An informer-style view of the pods a label selector matches in one namespace. */
export interface PodWatch {
  /** Every matching pod as last listed or watched (deleting and finished ones included). */
  pods(): V1Pod[];
  /** Ends the watch and its retries; no `onChange` is called once this resolves. */
  stop(): Promise<void>;
}

/**
 * Asked of the API server, so a quiet watch ends cleanly (and resumes from the last
 * resourceVersion) before client-node's 30 s inactivity timeout would fail it.
 */
const WATCH_TIMEOUT_SECONDS = 25;
/** Pause before relisting after a failed list or watch, so an API outage is not a busy loop. */
const RETRY_DELAY_MS = 1000;
/** Pause before resuming a watch that ended cleanly: short, as resuming loses no event. */
const RESUME_DELAY_MS = 100;

/**
 * Lists the pods, then watches them from the list's resourceVersion, calling `onChange`
 * after the list and after every change. A watch that ends is resumed from the last
 * resourceVersion while the view is not stopped; a failed one, or one the server ends
 * with an ERROR event (410 Gone: the version is too old), relists first, so the view
 * also catches up on what happened while nobody watched. Resolves after the first list;
 * rejects if that list fails.
 */
export async function watchPods(
  kube: KubeClients,
  namespace: string,
  labelSelector: string,
  onChange: () => void,
  onError: (error: unknown) => void,
): Promise<PodWatch> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`;
  const watch = new Watch(kube.config);
  const pods = new Map<string, V1Pod>();
  let resourceVersion: string | undefined;
  let stopped = false;
  let controller: AbortController | undefined;
  let retry: NodeJS.Timeout | undefined;
  let starting: Promise<void> | undefined;

  async function relist(): Promise<void> {
    const list = await kube.core.listNamespacedPod({
      namespace,
      labelSelector,
    });
    if (stopped) return;
    pods.clear();
    for (const pod of list.items) pods.set(pod.metadata?.name ?? '', pod);
    resourceVersion = list.metadata?.resourceVersion;
    onChange();
  }

  function onEvent(type: string, object: V1Pod): void {
    if (stopped) return;
    if (type === 'ERROR') {
      // A Status, not a pod; the server closes the watch next and the restart relists.
      resourceVersion = undefined;
      return;
    }
    resourceVersion = object.metadata?.resourceVersion ?? resourceVersion;
    if (type === 'BOOKMARK') return;
    const name = object.metadata?.name ?? '';
    if (type === 'DELETED') pods.delete(name);
    else pods.set(name, object);
    onChange();
  }

  async function startWatch(): Promise<void> {
    if (resourceVersion === undefined) await relist();
    if (stopped) return;
    const started = await watch.watch(
      path,
      {
        labelSelector,
        resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: WATCH_TIMEOUT_SECONDS,
      },
      onEvent,
      restart,
    );
    if (stopped) started.abort();
    else controller = started;
  }

  /** The watch's `done`: schedules the next watch unless the view was stopped. */
  function restart(error: unknown): void {
    controller = undefined;
    if (stopped) return;
    if (error !== null && error !== undefined) {
      onError(error);
      resourceVersion = undefined;
    }
    retry = setTimeout(
      () => {
        retry = undefined;
        starting = startWatch().catch(restart);
      },
      resourceVersion === undefined ? RETRY_DELAY_MS : RESUME_DELAY_MS,
    );
  }

  await relist();
  starting = startWatch().catch(restart);
  return {
    pods: () => [...pods.values()],
    stop: async () => {
      stopped = true;
      clearTimeout(retry);
      controller?.abort();
      await starting;
    },
  };
}
