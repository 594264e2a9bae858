import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  backoffDelayMs,
  describeError,
  indexByNamespace,
  kubeGetJson,
  loadKubeConfig,
  vpaTargetResolution,
  watchedCollection,
} from '@tandem/kube';
import {
  startServingApp,
  followFileContent,
  startHttpsServer,
} from '@tandem/serving';
import { healthy, startOpsServer, unhealthy } from '@tandem/telemetry';
import type { LimitRange, VerticalPodAutoscaler } from '@tandem/vpa-api';
import { parseFlags } from './flags.js';
import { webhookClient, webhookRegistrar } from './registration.js';
import { reviewApp } from './review-app.js';
import { statusLease } from './status-lease.js';
import { countingColdCaches } from './cold-caches.js';
import { vpaCandidates, warmTargetCaches } from './vpa-candidates.js';
import { webhookMetrics } from './webhook-metrics.js';

/**
 * Runs the admission webhook until SIGTERM/SIGINT and returns the exit code; `certs` as the
 * first argument runs the certificate bootstrap instead.
 */
export async function main(
  argv: readonly string[],
  version: string,
): Promise<number> {
  const started = await startServingApp(argv, version, {
    program: 'tandem-admission-webhook',
    defaultService: 'vpa-webhook',
    parseFlags,
  });
  if (typeof started === 'number') return started;
  const { flags, telemetry } = started;
  const { logger } = telemetry;
  const ownNamespace = process.env['NAMESPACE'] || 'kube-system';
  const kubeConfig = loadKubeConfig({ kubeconfigPath: flags.kubeconfig });
  const metrics = webhookMetrics(telemetry.metrics);
  const recovered = (kind: string) => (error: unknown) => {
    metrics.recoveredErrors.inc({ kind });
    logger.warn({ kind }, `recovered: ${describeError(error)}`);
  };

  // VPAs and LimitRanges from list+watch caches: a VPA created a moment before its pods is
  // known when they arrive, and a review costs no API call.
  const getJson = kubeGetJson(kubeConfig);
  const scope =
    flags.vpaObjectNamespace === undefined
      ? ''
      : `/namespaces/${flags.vpaObjectNamespace}`;
  const vpas = watchedCollection<KubernetesObject>({
    kubeConfig,
    get: getJson,
    path: `/apis/autoscaling.k8s.io/v1${scope}/verticalpodautoscalers`,
    onError: recovered('vpa-cache'),
  });
  const limitRanges = watchedCollection<KubernetesObject>({
    kubeConfig,
    get: getJson,
    path: `/api/v1${scope}/limitranges`,
    onError: recovered('limitrange-cache'),
  });
  const targets = vpaTargetResolution({
    kubeConfig,
    get: getJson,
    namespace: flags.vpaObjectNamespace,
    onError: (kind, error) => recovered(`target-cache-${kind}`)(error),
    syncTimeoutMs: flags.cacheSyncDeadlineMs,
  });
  // Per-namespace indexes, subscribed before the caches start: a review reads its
  // namespace's objects, not a copy of the cluster's.
  const vpasByNamespace = indexByNamespace(vpas);
  const limitRangesByNamespace = indexByNamespace(limitRanges);
  const ignored = new Set(flags.ignoredVpaObjectNamespaces);
  warmTargetCaches(vpas, targets, ignored);
  const synced = () =>
    vpas.hasSynced && limitRanges.hasSynced && targets.hasSynced();

  const app = reviewApp({
    context: countingColdCaches(
      {
        vpasInNamespace: (namespace) =>
          vpaCandidates(
            ignored.has(namespace)
              ? []
              : (vpasByNamespace.list(
                  namespace,
                ) as unknown as VerticalPodAutoscaler[]),
            targets,
          ),
        topMostController: targets.topMostController,
        limitRanges: async (namespace) =>
          limitRangesByNamespace.list(namespace) as unknown as LimitRange[],
        featureGates: flags.featureGates,
      },
      metrics.coldCache,
    ),
    metrics,
    registry: telemetry.metrics,
    tracer: telemetry.tracer,
    logger,
    health: () => healthy,
    readiness: () => (synced() ? healthy : unhealthy('caches not synced yet')),
  });

  const server = await startHttpsServer({
    port: flags.port,
    certFile: flags.tlsCertFile,
    keyFile: flags.tlsPrivateKey,
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

  const registrar = webhookRegistrar(kubeConfig, {
    timeoutSeconds: flags.webhookTimeoutSeconds,
    failurePolicyFail: flags.webhookFailurePolicyFail,
    labels: flags.webhookLabels,
    ignoredNamespaces: flags.ignoredVpaObjectNamespaces,
    objectNamespace: flags.vpaObjectNamespace,
    client: webhookClient(flags, ownNamespace, server.port),
  });
  const caBundle = flags.registerWebhook
    ? followFileContent({
        file: flags.clientCaFile,
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

  await Promise.all([vpas.start(), limitRanges.start()]);
  logger.info('caches synced');
  // Registration is retried with backoff until it succeeds (an API server that is down at
  // start must not leave the webhook unregistered for good); the lease runs meanwhile.
  const registration = (async () => {
    if (caBundle === undefined) return;
    for (let attempt = 1; !stopping.signal.aborted; attempt += 1) {
      try {
        await registrar.register(await caBundle.current());
        logger.info(
          { configuration: 'vpa-webhook-config' },
          'webhook registered',
        );
        return;
      } catch (error) {
        recovered('registration')(error);
        await sleep(backoffDelayMs(attempt, Math.random()), undefined, {
          signal: stopping.signal,
        }).catch(() => undefined);
      }
    }
  })();

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
  await Promise.all([
    server.close(),
    ops.close(),
    vpas.stop(),
    limitRanges.stop(),
    targets.stop(),
  ]);
  await telemetry.shutdown();
  return 0;
}
