import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import express from 'express';
import {
  describeError,
  indexByNamespace,
  kubeGetJson,
  loadKubeConnection,
  releaseMemoryAfterLists,
  retryUntilDone,
  sharedParts,
  watchedCollection,
} from '@tandem/kube';
import {
  startServingApp,
  followFileContent,
  opsRouter,
  requestSpans,
  servingFiles,
  startHttpsServer,
} from '@tandem/serving';
import { healthy, startOpsServer, unhealthy } from '@tandem/telemetry';
import { adapterMetrics } from './adapter-metrics.js';
import { apiServiceCaBundle } from './apiservice-ca.js';
import { deploymentReader } from './deployment-reader.js';
import {
  delegatedAuth,
  followAuthenticationConfig,
  subjectAccessReviewer,
  tokenReviewer,
  type RequestHeaderConfig,
} from './auth/index.js';
import { parseFlags } from './flags.js';
import { passThrough } from './pass-through/index.js';
import { routedElsewhereMessage } from './pass-through/apiservice-route.js';
import {
  metricRoutes,
  requestAttributes,
  requestSpanName,
} from './metric-routes.js';
import { podTemplates } from './pod-templates.js';
import { podViews } from './pod-views.js';
import { prometheusUsage } from './prometheus-usage.js';
import { reducedPod } from './reduced-objects.js';
import { cachedUsage, metricsServerUsage } from './usage-source.js';

/** Runs the metrics adapter until SIGTERM/SIGINT; returns the exit code. */
export async function main(
  argv: readonly string[],
  version: string,
): Promise<number> {
  const started = await startServingApp(argv, version, {
    program: 'tandem-metrics-adapter',
    defaultService: 'tandem-metrics-adapter',
    parseFlags,
  });
  if (typeof started === 'number') return started;
  const { flags, telemetry } = started;
  const { logger } = telemetry;
  const connection = await loadKubeConnection({
    kubeconfigPath: flags.kubeconfig,
  });
  const metrics = adapterMetrics(telemetry.metrics);
  const recovered = (what: string) => (error: unknown) =>
    logger.warn({ cache: what }, `recovered: ${describeError(error)}`);

  const getJson = kubeGetJson(connection);
  // One table of the parts the pods and their controllers have in common, and the heap
  // their lists grew handed back once they are in (ADR 0024).
  const share = sharedParts();
  const onListed = releaseMemoryAfterLists();
  const pods = watchedCollection<V1Pod>({
    connection,
    get: getJson,
    path: '/api/v1/pods',
    pageSize: flags.listPageSize,
    // Every pod of the cluster: only what the answers read is kept.
    reduce: (pod) => reducedPod(pod, share),
    onListed,
    onError: recovered('pods'),
  });
  // Before the cache starts, so its first list arrives as events too.
  const podsByNamespace = indexByNamespace(pods);
  const templates = podTemplates({
    connection,
    get: getJson,
    pageSize: flags.listPageSize,
    share,
    onListed,
    onError: (kind, error) => recovered(kind)(error),
  });
  const usage = cachedUsage(
    flags.prometheus === undefined
      ? metricsServerUsage(getJson)
      : prometheusUsage(flags.prometheus),
    flags.metricsCacheTtlMs,
  );

  // The front-proxy CA comes from kube-system/extension-apiserver-authentication; it is
  // written to a file the HTTPS server verifies client certificates against and reloads.
  const authDir = mkdtempSync(join(tmpdir(), 'tandem-metrics-adapter-'));
  const requestheaderCaFile = join(authDir, 'requestheader-ca.pem');
  let authConfig: RequestHeaderConfig | undefined;
  let firstConfig: () => void = () => undefined;
  const configRead = new Promise<void>((resolve) => (firstConfig = resolve));
  const authentication = followAuthenticationConfig({
    connection,
    logger,
    onChange: (config) => {
      authConfig = config;
      const pem = config.requestheaderCaPem ?? '';
      const temporary = `${requestheaderCaFile}.new`;
      writeFile(temporary, pem)
        .then(() => rename(temporary, requestheaderCaFile))
        .then(firstConfig, recovered('requestheader-ca-file'));
    },
    onError: recovered('extension-apiserver-authentication'),
  });

  const synced = () =>
    pods.hasSynced && templates.hasSynced() && authentication.synced();
  const readiness = () =>
    synced() ? healthy : unhealthy('caches not synced yet');
  const app = express();
  app.disable('x-powered-by');
  // Answers are computed per request: an ETag would only cost a hash of every body.
  app.set('etag', false);
  app.use(requestSpans(telemetry.tracer, requestSpanName));
  // As k8s.io/apiserver: the probes answer anyone (delegatedAuth lets them through), while
  // /metrics on this port needs a caller allowed `get` on that non-resource URL; the
  // unauthenticated scrape is the plain ops port's (--address), as on every Tandem app.
  app.use(
    delegatedAuth({
      config: () => authConfig,
      reviewToken: tokenReviewer(connection),
      authorize: subjectAccessReviewer(connection),
      attributesOf: requestAttributes,
      count: (outcome) => metrics.auth.inc({ outcome }),
      logger,
    }),
  );
  app.use(
    opsRouter({
      registry: telemetry.metrics,
      health: () => healthy,
      readiness,
    }),
  );
  // After authorization, so nobody reads through Tandem what they could not read directly.
  if (flags.upstreamProvider !== undefined)
    app.use(
      await passThrough({
        provider: flags.upstreamProvider,
        connection,
        logger,
        observe: (kind, code, seconds) =>
          metrics.requestDuration.observe(
            { kind, code: String(code) },
            seconds,
          ),
      }),
    );
  app.use(
    metricRoutes({
      podsIn: podsByNamespace.list,
      viewOf: podViews(templates),
      revisionOf: (namespace) => [
        podsByNamespace.revision(namespace),
        templates.revision(namespace),
      ],
      usage,
      deployments: deploymentReader(getJson),
      sourceName:
        flags.prometheus === undefined ? 'metrics.k8s.io' : 'prometheus',
      metrics,
      logger,
      now: () => new Date(),
    }),
  );

  // With --certs-secret, the first files exist before the bundle is written as the
  // APIServices' caBundle and before the server loads them.
  const certificates = await servingFiles(
    flags.certificates,
    {
      caBundleFile: flags.apiServiceCaFile,
      certFile: flags.tlsCertFile,
      keyFile: flags.tlsPrivateKeyFile,
    },
    { connection, logger, registry: telemetry.metrics },
  );
  const apiServiceCaFile = certificates.files.caBundleFile;
  // Without cert-manager the adapter keeps its APIServices' caBundle in step with its CA.
  const ownHost = flags.certificates.identity.commonName;
  const writeCaBundle = apiServiceCaBundle(connection, ownHost, (name, spec) =>
    logger.error(
      { apiService: name, upstream: flags.upstreamProvider?.url },
      routedElsewhereMessage(name, spec, ownHost),
    ),
  );
  const applyCaBundle = async (caPem: string) => {
    const patched = await writeCaBundle(caPem);
    if (patched.length > 0)
      logger.info({ apiServices: patched }, 'caBundle written');
  };
  const caBundle =
    apiServiceCaFile === undefined
      ? undefined
      : followFileContent({
          file: apiServiceCaFile,
          logger,
          onChange: applyCaBundle,
        });

  const stopping = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => stopping.abort());
  // Retried until written: an APIService left with the previous CA would refuse every
  // certificate this replica serves once that CA leaves the bundle.
  const caBundleWritten =
    caBundle &&
    retryUntilDone(() => caBundle.apply(applyCaBundle), {
      signal: stopping.signal,
      onError: recovered('apiservice-ca-bundle'),
    });

  await Promise.all([pods.start(), templates.start(), configRead]);
  logger.info('caches synced');
  const server = await startHttpsServer({
    port: flags.secure.port,
    host: flags.secure.host,
    certFile: certificates.files.certFile,
    keyFile: certificates.files.keyFile,
    clientCaFile: requestheaderCaFile,
    minTlsVersion: flags.minTlsVersion,
    app,
    logger,
    registry: telemetry.metrics,
  });
  logger.info({ url: server.url }, 'custom metrics API listening');
  const ops = await startOpsServer({
    ...flags.address,
    registry: telemetry.metrics,
    health: () => healthy,
    readiness,
  });
  logger.info({ url: ops.url }, 'ops server listening');

  await new Promise<void>((resolve) =>
    stopping.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  logger.info('stopping');
  await caBundleWritten;
  caBundle?.close();
  certificates.stop();
  await Promise.all([
    server.close(),
    ops.close(),
    pods.stop(),
    templates.stop(),
    authentication.stop(),
  ]);
  rmSync(authDir, { recursive: true, force: true });
  await telemetry.shutdown();
  return 0;
}
