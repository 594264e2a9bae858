import type {
  CoreV1Event,
  KubeConfig,
  KubernetesObject,
  V1Pod,
} from '@kubernetes/client-node';
import {
  describeError,
  kubeGetJson,
  podMetricsSource,
  vpaTargetResolution,
  watchedCollection,
} from '@tandem/kube';
import {
  type CycleInputs,
  objectKey,
  type ObservedOom,
  type ObservedPod,
  oomsFromEvictionEvent,
  oomsFromPodUpdate,
} from '@tandem/recommender-core';
import type { Logger } from '@tandem/telemetry';
import { VPA_API_VERSION, type VerticalPodAutoscaler } from '@tandem/vpa-api';

/** The cluster as the cycle reads it: list+watch caches, target resolution and metrics. */
export interface ClusterInputs {
  inputs: Omit<CycleInputs, 'stillLeading'>;
  /** True once every cache has its first list. */
  synced(): boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function clusterInputs(
  kubeConfig: KubeConfig,
  namespace: string | undefined,
  logger: Logger,
): ClusterInputs {
  const onCacheError = (what: string) => (error: unknown) =>
    logger.warn({ cache: what }, `cache recovered: ${describeError(error)}`);
  const get = kubeGetJson(kubeConfig);
  const scope = namespace === undefined ? '' : `/namespaces/${namespace}`;
  const collection = <T extends KubernetesObject>(
    what: string,
    path: string,
    fieldSelector?: string,
  ) =>
    watchedCollection<T>({
      kubeConfig,
      get,
      path,
      fieldSelector,
      onError: onCacheError(what),
    });
  const vpas = collection<KubernetesObject>(
    'vpas',
    `/apis/${VPA_API_VERSION}${scope}/verticalpodautoscalers`,
  );
  // Pending pods have no usage yet and are left out, as upstream's pod informer does.
  const pods = collection<V1Pod>(
    'pods',
    `/api/v1${scope}/pods`,
    'status.phase!=Pending',
  );
  // Memory evictions count as OOMs (upstream's observer); only new events matter, so the
  // cache's initial list is read like upstream's watch replay, and updates are ignored.
  const evictions = collection<CoreV1Event>(
    'eviction events',
    `/api/v1${scope}/events`,
    'reason=Evicted',
  );
  const ooms: ObservedOom[] = [];
  pods.onEvent((event) => {
    if (event.type === 'update')
      ooms.push(
        ...oomsFromPodUpdate(
          event.previous as ObservedPod,
          event.object as ObservedPod,
        ),
      );
  });
  evictions.onEvent((event) => {
    if (event.type === 'add') ooms.push(...oomsFromEvictionEvent(event.object));
  });
  // Targets: well-known controllers from list+watch caches, other kinds via `/scale`.
  const targets = vpaTargetResolution({
    kubeConfig,
    get,
    namespace,
    onError: (kind, error) => onCacheError(kind)(error),
  });

  return {
    inputs: {
      // Custom objects arrive as plain JSON, which is exactly the shape vpa-api types describe.
      listVpas: () => vpas.list() as unknown as VerticalPodAutoscaler[],
      listPods: () => pods.list(),
      allVpaKeys: () =>
        new Set(
          vpas
            .list()
            .map((vpa) =>
              objectKey(
                vpa.metadata?.namespace ?? '',
                vpa.metadata?.name ?? '',
              ),
            ),
        ),
      resolveTarget: targets.resolve,
      loadMetrics: podMetricsSource(kubeConfig, namespace),
      takeOoms: () => ooms.splice(0),
      clock: Date.now,
    },
    synced: () =>
      vpas.status().hasSynced && pods.status().hasSynced && targets.hasSynced(),
    start: async () => {
      await Promise.all([vpas.start(), pods.start(), evictions.start()]);
    },
    stop: async () => {
      await Promise.all([
        vpas.stop(),
        pods.stop(),
        evictions.stop(),
        targets.stop(),
      ]);
    },
  };
}
