import type {
  CoreV1Event,
  KubernetesObject,
  V1Pod,
} from '@kubernetes/client-node';
import {
  describeError,
  eventRecorder,
  podMetricsSource,
  kubeGetJson,
  startLeadership,
  loadKubeConfig,
  vpaTargetResolution,
  watchedCollection,
} from '@tandem/kube';
import {
  cycleLoop,
  startOpsServer,
  startTelemetry,
  unhealthy,
  healthy,
} from '@tandem/telemetry';
import type { VerticalPodAutoscaler } from '@tandem/vpa-api';
import { loadCheckpoints } from './checkpoint-loader.js';
import { loadVpas, runCycle, type CycleContext } from './cycle.js';
import { FlagError, parseFlags } from './flags.js';
import { loadPrometheusHistory } from './history/load-prometheus-history.js';
import {
  ClusterModel,
  objectKey,
  oomsFromEvictionEvent,
  oomsFromPodUpdate,
  type ObservedOom,
  type ObservedPod,
} from './model/index.js';
import { recommenderMetrics } from './recommender-metrics.js';
import { vpaStore } from './vpa-store.js';

/** Runs the recommender until SIGTERM/SIGINT; returns the exit code. */
export async function main(
  argv: readonly string[],
  version: string,
): Promise<number> {
  let flags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`tandem-recommender: ${error.message}\n`);
    return 2;
  }
  const telemetry = startTelemetry({
    serviceName: 'tandem-recommender',
    serviceVersion: version,
    // LOG_LEVEL wins; otherwise upstream's `--v` decides.
    env: { LOG_LEVEL: flags.verbosityLogLevel, ...process.env },
  });
  const { logger } = telemetry;
  if (flags.ignoredFlags.length > 0)
    logger.warn({ flags: flags.ignoredFlags }, 'flags accepted and ignored');
  const kubeConfig = loadKubeConfig({ kubeconfigPath: flags.kubeconfig });
  const namespace = flags.vpaObjectNamespace;
  const onCacheError = (what: string) => (error: unknown) =>
    logger.warn({ cache: what }, `cache recovered: ${describeError(error)}`);

  const getJson = kubeGetJson(kubeConfig);
  const scope = namespace === undefined ? '' : `/namespaces/${namespace}`;
  const collection = <T extends KubernetesObject>(
    what: string,
    path: string,
    fieldSelector?: string,
  ) =>
    watchedCollection<T>({
      kubeConfig,
      get: getJson,
      path,
      fieldSelector,
      onError: onCacheError(what),
    });
  const vpas = collection<KubernetesObject>(
    'vpas',
    `/apis/autoscaling.k8s.io/v1${scope}/verticalpodautoscalers`,
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
    get: getJson,
    namespace,
    onError: (kind, error) => onCacheError(kind)(error),
  });

  const metrics = recommenderMetrics(telemetry.metrics);
  const store = vpaStore(kubeConfig);
  const context: CycleContext = {
    model: new ClusterModel({
      memorySaver: flags.memorySaver,
      aggregation: flags.estimators.aggregation,
    }),
    recommenderConfig: flags.estimators.recommender,
    recommendationFormat: flags.estimators.format,
    selection: {
      recommenderName: flags.recommenderName,
      namespace,
      ignoredNamespaces: flags.ignoredVpaObjectNamespaces,
    },
    globalMaxAllowed: flags.globalMaxAllowed,
    allVpaKeys: () =>
      new Set(
        vpas
          .list()
          .map((vpa) =>
            objectKey(vpa.metadata?.namespace ?? '', vpa.metadata?.name ?? ''),
          ),
      ),
    namespace,
    checkpointsEnabled: flags.storage === 'checkpoint',
    checkpointsGcIntervalMs: flags.checkpointsGcIntervalMs,
    checkpointsTimeoutMs: flags.checkpointsTimeoutMs,
    updateWorkers: flags.updateWorkerCount,
    lastCheckpointWrittenMs: new Map(),
    clock: Date.now,
    lastCheckpointGcMs: Date.now(),
    // Custom objects arrive as plain JSON, which is exactly the shape vpa-api types describe.
    listVpas: () => vpas.list() as unknown as VerticalPodAutoscaler[],
    listPods: () => pods.list(),
    resolveTarget: targets.resolve,
    loadMetrics: podMetricsSource(kubeConfig, namespace),
    takeOoms: () => ooms.splice(0),
    store,
    tracer: telemetry.tracer,
    logger,
    metrics,
    lastGcMs: undefined,
  };

  const leadership = startLeadership(flags, kubeConfig, logger);
  const loop = cycleLoop({
    intervalMs: flags.recommenderIntervalMs,
    leadership,
    cycle: (nowMs) => runCycle(context, nowMs),
    onFailure: (error) =>
      logger.error(
        { err: error },
        'cycle failed; the model is kept and the next cycle retries',
      ),
    logger,
  });
  const ops = await startOpsServer({
    ...flags.address,
    registry: telemetry.metrics,
    health: loop.health,
    readiness: () =>
      vpas.status().hasSynced && pods.status().hasSynced && targets.hasSynced()
        ? healthy
        : unhealthy('caches not synced yet'),
  });
  logger.info({ url: ops.url }, 'ops server listening');

  const stopping = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => stopping.abort());

  await Promise.all([vpas.start(), pods.start(), evictions.start()]);
  await loadVpas(context, (kind, message) => logger.warn({ kind }, message));
  // History (§4.1): after the VPAs, so the memory saver knows which pods they select.
  if (flags.storage === 'prometheus')
    await loadPrometheusHistory(context, flags.prometheus, namespace);
  else
    await loadCheckpoints({
      model: context.model,
      store,
      namespace,
      logger,
      metrics,
      recordEvent: eventRecorder(kubeConfig, 'tandem-recommender'),
    });

  await loop.run(stopping.signal);

  logger.info('stopping');
  await leadership.stop();
  await Promise.all([
    vpas.stop(),
    pods.stop(),
    evictions.stop(),
    targets.stop(),
    ops.close(),
  ]);
  await telemetry.shutdown();
  return 0;
}
