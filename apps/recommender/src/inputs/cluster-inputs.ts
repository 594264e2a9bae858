import type {
  CoreV1Event,
  KubeConfig,
  KubernetesObject,
  V1Node,
  V1Pod,
} from '@kubernetes/client-node';
import {
  clusterCaches,
  describeError,
  kubeConnectionOf,
  kubeGetJson,
  podMetricsSource,
  sharedParts,
} from '@tandem/kube';
import {
  type CycleInputs,
  objectKey,
  type ObservedOom,
  type ObservedPod,
  oomsFromEvictionEvent,
  oomsFromPodUpdate,
  recommenderPod,
} from '@tandem/recommender-core';
import type { Logger } from '@tandem/telemetry';
import type { VerticalPodAutoscaler } from '@tandem/vpa-api';

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
  options: {
    listPageSize: number;
    /** `--cap-recommendation-at-largest-node`: cache Nodes (only then: it needs RBAC on them). */
    readNodes: boolean;
  },
): ClusterInputs {
  const { listPageSize } = options;
  const connection = kubeConnectionOf(kubeConfig);
  const caches = clusterCaches({
    connection,
    namespace,
    listPageSize,
    onError: (cache, error) =>
      logger.warn({ cache }, `cache recovered: ${describeError(error)}`),
  });
  const vpas = caches.collection<KubernetesObject>('vpa');
  // Pending pods have no usage yet and are left out, as upstream's pod informer does; the
  // others are kept as the cycle reads them, their common parts held once.
  const share = sharedParts();
  const pods = caches.collection<V1Pod>('pod', 'status.phase!=Pending', (pod) =>
    recommenderPod(pod, share),
  );
  // Memory evictions count as OOMs (upstream's observer); only new events matter, so the
  // cache's initial list is read like upstream's watch replay, and updates are ignored.
  const evictions = caches.collection<CoreV1Event>('event', 'reason=Evicted');
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
  const nodes = options.readNodes
    ? caches.collection<V1Node>('node')
    : undefined;
  // Targets: well-known controllers from list+watch caches, other kinds via `/scale`.
  const { targets } = caches;

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
      loadMetrics: podMetricsSource(kubeGetJson(connection), namespace),
      takeOoms: () => ooms.splice(0),
      ...(nodes === undefined ? {} : { listNodes: () => nodes.list() }),
      clock: Date.now,
    },
    synced: caches.hasSynced,
    start: caches.start,
    stop: caches.stop,
  };
}
