import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  clusterCaches,
  describeError,
  eventRecorder,
  indexByNamespace,
  kubeConnectionOf,
  limitRequestRate,
  retryUntilDone,
} from '@tandem/kube';
import { loadKubeConfig } from '@tandem/kube/clients';
import {
  startServingApp,
  followFileContent,
  servingFiles,
  startHttpsServer,
} from '@tandem/serving';
import { healthy, startOpsServer, unhealthy } from '@tandem/telemetry';
import type { LimitRange, VerticalPodAutoscaler } from '@tandem/vpa-api';
import { parseFlags } from './flags.js';
import { webhookClient, webhookRegistrar } from './registration.js';
import { reviewApp } from './review-app.js';
import { statusLease } from './status-lease.js';
import { countingColdCaches } from './cold-caches.js';
import { firstListsWithin } from './first-lists.js';
import { vpaCandidates, warmTargetCaches } from './vpa-candidates.js';
import { webhookMetrics } from './webhook-metrics.js';

const PROGRAM = 'tandem-admission-webhook';

/**
 * Runs the admission webhook until SIGTERM/SIGINT and returns the exit code; `certs` as the
 * first argument runs the certificate bootstrap instead.
 */
export async function main(
  argv: readonly string[],
  version: string,
): Promise<number> {
  const started = await startServingApp(argv, version, {
    program: PROGRAM,
    defaultService: 'vpa-webhook',
    parseFlags,
  });
  if (typeof started === 'number') return started;
  const { flags, telemetry } = started;
  const { logger } = telemetry;
  const ownNamespace = process.env['NAMESPACE'] || 'kube-system';
  const kubeConfig = loadKubeConfig({ kubeconfigPath: flags.kubeconfig });
  limitRequestRate(kubeConfig, flags.kubeApiQps, flags.kubeApiBurst);
  const connection = kubeConnectionOf(kubeConfig);
  const metrics = webhookMetrics(telemetry.metrics);
  const recovered = (kind: string) => (error: unknown) => {
    metrics.recoveredErrors.inc({ kind });
    logger.warn({ kind }, `recovered: ${describeError(error)}`);
  };

  // VPAs and LimitRanges from list+watch caches: a VPA created a moment before its pods is
  // known when they arrive, and a review costs no API call.
  const caches = clusterCaches({
    connection,
    namespace: flags.vpaObjectNamespace,
    onError: (cache, error) => recovered(cache)(error),
    targetSyncTimeoutMs: flags.cacheSyncDeadlineMs,
    listPageSize: flags.listPageSize,
    // A pod's ReplicaSet is often younger than the watch that would bring it.
    readTargetMisses: true,
  });
  const vpas = caches.collection('vpa');
  const limitRanges = caches.collection('limitrange');
  const { targets } = caches;
  // Per-namespace indexes, subscribed before the caches start: a review reads its
  // namespace's objects, not a copy of the cluster's.
  const vpasByNamespace = indexByNamespace(vpas);
  const limitRangesByNamespace = indexByNamespace(limitRanges);
  const ignored = new Set(flags.ignoredVpaObjectNamespaces);
  warmTargetCaches(vpas, targets, ignored);
  const listed = caches.start();
  // Rejects only when stopped before the first lists; start-up awaits it below.
  listed.catch(() => undefined);
  const reviewedCachesListed = firstListsWithin(
    [
      { kind: 'VerticalPodAutoscaler', cache: vpas },
      { kind: 'LimitRange', cache: limitRanges },
    ],
    listed,
    flags.cacheSyncDeadlineMs,
  );
  const synced = caches.hasSynced;

  const app = reviewApp({
    context: countingColdCaches(
      {
        vpasInNamespace: async (namespace) => {
          await reviewedCachesListed();
          return vpaCandidates(
            ignored.has(namespace)
              ? []
              : (vpasByNamespace.list(
                  namespace,
                ) as unknown as VerticalPodAutoscaler[]),
            targets,
          );
        },
        topMostController: targets.topMostController,
        limitRanges: async (namespace) =>
          limitRangesByNamespace.list(namespace) as unknown as LimitRange[],
        featureGates: flags.featureGates,
        ...(flags.maxAllowedCpuBoost !== undefined && {
          maxAllowedCpuBoost: flags.maxAllowedCpuBoost,
        }),
      },
      metrics.coldCache,
    ),
    metrics,
    recordEvent: eventRecorder(connection, PROGRAM, {
      recovered: recovered('event'),
    }),
    registry: telemetry.metrics,
    tracer: telemetry.tracer,
    logger,
    health: () => healthy,
    readiness: () => (synced() ? healthy : unhealthy('caches not synced yet')),
  });

  // With --certs-secret, the first files exist before the server loads them and before
  // the bundle is registered as the caBundle.
  const certificates = await servingFiles(
    flags.certificates,
    {
      caBundleFile: flags.clientCaFile,
      certFile: flags.tlsCertFile,
      keyFile: flags.tlsPrivateKey,
    },
    {
      connection,
      logger,
      registry: telemetry.metrics,
    },
  );
  const server = await startHttpsServer({
    port: flags.port,
    certFile: certificates.files.certFile,
    keyFile: certificates.files.keyFile,
    minTlsVersion: flags.minTlsVersion,
    ciphers: flags.tlsCiphers,
    app,
    logger,
    registry: telemetry.metrics,
  });
  logger.info({ url: server.url }, 'webhook server listening');
  const ops = await startOpsServer({
    ...flags.address,
    registry: telemetry.metrics,
    health: () => healthy,
    readiness: () => (synced() ? healthy : unhealthy('caches not synced yet')),
  });
  logger.info({ url: ops.url }, 'ops server listening');

  const registrar = webhookRegistrar(
    kubeConfig,
    {
      timeoutSeconds: flags.webhookTimeoutSeconds,
      failurePolicyFail: flags.webhookFailurePolicyFail,
      labels: flags.webhookLabels,
      ignoredNamespaces: flags.ignoredVpaObjectNamespaces,
      objectNamespace: flags.vpaObjectNamespace,
      client: webhookClient(flags, ownNamespace, server.port),
    },
    {
      clusterRole: flags.webhookOwnerClusterRole,
      onUnavailable: (message) => logger.warn(message),
    },
  );
  const caBundle = flags.registerWebhook
    ? followFileContent({
        file: certificates.files.caBundleFile,
        logger,
        onChange: async (caPem) => {
          logger.info('New client CA found, reloading and patching webhook');
          await registrar.updateCaBundle(caPem);
        },
      })
    : undefined;

  const stopping = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => stopping.abort());

  await listed;
  logger.info('caches synced');
  // Registration is retried with backoff until it succeeds (an API server that is down at
  // start must not leave the webhook unregistered for good); the lease runs meanwhile.
  const registration =
    caBundle &&
    retryUntilDone(
      async () => {
        await caBundle.apply((caPem) => registrar.register(caPem));
        logger.info(
          { configuration: 'vpa-webhook-config' },
          'webhook registered',
        );
      },
      { signal: stopping.signal, onError: recovered('registration') },
    );

  const lease = statusLease(kubeConfig, {
    name: flags.statusLeaseName,
    namespace: flags.statusLeaseNamespace || ownNamespace,
    holder: process.env['POD_NAME'] ?? `${hostname()}-${process.pid}`,
  });
  while (!stopping.signal.aborted) {
    await lease.renew(Date.now()).catch(recovered('status-lease'));
    await sleep(flags.statusLeaseUpdateIntervalMs, undefined, {
      signal: stopping.signal,
    }).catch(() => undefined);
  }

  logger.info('stopping');
  await registration;
  caBundle?.close();
  certificates.stop();
  await Promise.all([server.close(), ops.close(), caches.stop()]);
  await telemetry.shutdown();
  return 0;
}
