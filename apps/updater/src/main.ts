import { setTimeout as sleep } from 'node:timers/promises';
import { CoordinationV1Api, type V1Pod } from '@kubernetes/client-node';
import {
  clusterCaches,
  describeError,
  eventRecorder,
  kubeConnectionOf,
  httpStatusOf,
  indexByNamespace,
  kubeGetJson,
  limitRequestRate,
  podMetricsSource,
  TokenBucket,
  type PodContainerUsage,
} from '@tandem/kube';
import { loadKubeConfig, startLeadership } from '@tandem/kube/clients';
import {
  cycleLoop,
  healthy,
  startOpsServer,
  startTelemetry,
  unhealthy,
} from '@tandem/telemetry';
import {
  InfeasibleResizes,
  isAdmissionStatusFresh,
  ReplicaOwnerKind,
  type ReplicaOwner,
  type UpdaterPod,
} from '@tandem/update-decisions';
import type { LimitRange, VerticalPodAutoscaler } from '@tandem/vpa-api';
import {
  dryRunActions,
  PodEvaluations,
  runUpdaterCycle,
  updaterMetrics,
  type UpdaterCycleContext,
} from '@tandem/updater-core';
import { FlagError, parseFlags } from './flags.js';
import { kubePodActions } from './kube-pod-actions.js';

const PROGRAM = 'tandem-updater';

/** Runs the updater until SIGTERM/SIGINT; returns the exit code. */
export async function main(
  argv: readonly string[],
  version: string,
): Promise<number> {
  let flags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`${PROGRAM}: ${error.message}\n`);
    return 2;
  }
  const telemetry = startTelemetry({
    serviceName: PROGRAM,
    serviceVersion: version,
    env: { LOG_LEVEL: flags.verbosityLogLevel, ...process.env },
  });
  const { logger } = telemetry;
  if (flags.ignoredFlags.length > 0)
    logger.warn({ flags: flags.ignoredFlags }, 'klog flags ignored');
  const kubeConfig = loadKubeConfig({ kubeconfigPath: flags.kubeconfig });
  // The Lease gets a client of its own, unpaced, as upstream's leader election gets its own
  // clientset: its renewals never queue behind a busy cycle's requests past the deadline.
  const leaseKubeConfig = loadKubeConfig({ kubeconfigPath: flags.kubeconfig });
  limitRequestRate(kubeConfig, flags.kubeApiQps, flags.kubeApiBurst);
  const metrics = updaterMetrics(telemetry.metrics);
  const recover = (kind: string, message: string, fields: object = {}) => {
    metrics.recoveredErrors.inc({ kind });
    logger.warn({ kind, ...fields }, message);
  };
  const connection = kubeConnectionOf(kubeConfig);
  const getJson = kubeGetJson(connection);
  const caches = clusterCaches({
    connection,
    namespace: flags.vpaObjectNamespace,
    listPageSize: flags.listPageSize,
    onError: (cache, error) =>
      recover(cache, `cache recovered: ${describeError(error)}`),
  });
  const vpas = caches.collection('vpa');
  // Upstream's pod reflector: scheduled and not finished.
  const pods = caches.collection<V1Pod>(
    'pod',
    'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed',
  );
  const limitRanges = caches.collection('limitrange');
  const limitRangesByNamespace = indexByNamespace(limitRanges);
  const { targets } = caches;
  const configuredReplicas = async (owner: ReplicaOwner) => {
    if ('scalable' in owner)
      return targets.scaleReplicas(owner, owner.namespace);
    const object = (await targets.controller(
      owner.kind === ReplicaOwnerKind.Job ? 'Job' : owner.kind,
      owner.namespace,
      owner.name,
    )) as
      | { spec?: { replicas?: number }; status?: { numberReady?: number } }
      | undefined;
    return owner.kind === ReplicaOwnerKind.DaemonSet
      ? object?.status?.numberReady
      : object?.spec?.replicas;
  };

  const statusLeaseNamespace =
    flags.admissionControllerStatusLeaseNamespace ||
    process.env['NAMESPACE'] ||
    'kube-system';
  const coordination = kubeConfig.makeApiClient(CoordinationV1Api);
  const admissionControllerAlive = async () => {
    try {
      const lease = await coordination.readNamespacedLease({
        name: flags.admissionControllerStatusLeaseName,
        namespace: statusLeaseNamespace,
      });
      return isAdmissionStatusFresh(
        lease,
        Date.now(),
        flags.admissionControllerStatusLeaseTimeoutMs,
      );
    } catch (error) {
      if (httpStatusOf(error) !== 404)
        recover(
          'admission-status',
          `admission controller status unreadable: ${describeError(error)}`,
        );
      return false;
    }
  };

  const stopping = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => stopping.abort());

  const leadership = startLeadership(flags, leaseKubeConfig, logger);
  const context: UpdaterCycleContext = {
    intervalMs: flags.updaterIntervalMs,
    ignoredNamespaces: new Set(flags.ignoredVpaObjectNamespaces),
    // Custom objects arrive as plain JSON, which is exactly the shape vpa-api types describe.
    listVpas: () => vpas.list() as unknown as VerticalPodAutoscaler[],
    listPods: () => pods.list() as unknown as UpdaterPod[],
    resolveTarget: targets.resolve,
    topMostController: targets.topMostController,
    admissionControllerAlive: flags.useAdmissionControllerStatus
      ? admissionControllerAlive
      : undefined,
    stillLeading: leadership.isLeading,
    limitRanges: (namespace) =>
      limitRangesByNamespace.list(namespace) as unknown as LimitRange[],
    configuredReplicas,
    inPlaceMemoryLimitHeadroom: flags.inPlaceMemoryLimitHeadroom,
    memoryWorkingSets: async (namespace) =>
      workingSetsByPod((await podMetricsSource(getJson, namespace)()).usages),
    settings: {
      featureGates: flags.featureGates,
      thresholds: {
        podUpdateThreshold: flags.podUpdateThreshold,
        podLifetimeThresholdMs: flags.podLifetimeThresholdMs,
        evictAfterOomThresholdMs: flags.evictAfterOomThresholdMs,
        featureGates: flags.featureGates,
      },
      restriction: {
        minReplicas: flags.minReplicas,
        evictionTolerance: flags.evictionTolerance,
        allowSingleReplica: flags.allowSingleReplica,
        inPlaceSkipDisruptionBudget: flags.inPlaceSkipDisruptionBudget,
        inPlaceBelowMinReplicas: flags.inPlaceBelowMinReplicas,
      },
      inPlaceForAuto: flags.inPlaceForAuto,
    },
    actions: flags.dryRun ? dryRunActions : kubePodActions(kubeConfig),
    recordEvent: eventRecorder(connection, PROGRAM, {
      recovered: (error) =>
        recover('event', `event not written: ${describeError(error)}`),
    }),
    // Two buckets with the same settings, as upstream: resizes do not use up evictions.
    evictionLimiter: new TokenBucket(
      flags.evictionRateLimit,
      flags.evictionRateBurst,
    ),
    inPlaceLimiter: new TokenBucket(
      flags.evictionRateLimit,
      flags.evictionRateBurst,
    ),
    infeasible: new InfeasibleResizes(),
    evaluations: new PodEvaluations(),
    dryRun: flags.dryRun,
    sleep: (ms) =>
      sleep(ms, undefined, { signal: stopping.signal }).catch(() => undefined),
    recover,
    tracer: telemetry.tracer,
    logger,
    metrics,
  };

  const loop = cycleLoop({
    intervalMs: flags.updaterIntervalMs,
    leadership,
    cycle: async (nowMs) => {
      const summary = await runUpdaterCycle(context, new Date(nowMs));
      context.infeasible.retainOnly(
        pods.list().map((pod) => pod.metadata?.uid ?? ''),
      );
      return summary;
    },
    onFailure: (error) =>
      recover(
        'cycle',
        `cycle failed; the next one retries: ${describeError(error)}`,
      ),
    logger,
  });
  const ops = await startOpsServer({
    ...flags.address,
    registry: telemetry.metrics,
    health: loop.health,
    readiness: () =>
      caches.hasSynced() ? healthy : unhealthy('caches not synced yet'),
  });
  logger.info({ url: ops.url, dryRun: flags.dryRun }, 'ops server listening');

  await caches.start();
  logger.info('caches synced');

  await loop.run(stopping.signal);

  logger.info('stopping');
  await leadership.stop();
  limitRangesByNamespace.close();
  await Promise.all([caches.stop(), ops.close()]);
  await telemetry.shutdown();
  return 0;
}

/** metrics.k8s.io usages as the memory-shrink rail reads them: bytes by pod, then container. */
function workingSetsByPod(
  usages: readonly PodContainerUsage[],
): Map<string, Map<string, number>> {
  const byPod = new Map<string, Map<string, number>>();
  for (const usage of usages) {
    const containers = byPod.get(usage.pod) ?? new Map<string, number>();
    containers.set(usage.container, usage.memoryBytes);
    byPod.set(usage.pod, containers);
  }
  return byPod;
}
