import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import {
  DEFAULT_HISTORY_TIMINGS,
  fleetSampler,
  prepareWorkloadsJson,
  type ObservedEvent,
  type PerContainer,
} from '@tandem/dashboard-core';
import {
  describeError,
  indexByNamespace,
  kubeGetJson,
  loadKubeConnection,
  podMetricsSource,
  vpaTargetResolution,
  watchedCollection,
} from '@tandem/kube';
import { opsRouter, startFlaggedApp } from '@tandem/serving';
import { healthy, unhealthy } from '@tandem/telemetry';
import { dashboardRoutes } from './dashboard-routes.js';
import { encodeJson } from './encoded-json.js';
import { parseFlags } from './flags.js';
import { exportHistory } from './history-export.js';
import { prometheusHistory } from './prometheus-history.js';
import {
  reducedEvent,
  reducedHpa,
  reducedPod,
  reducedVpa,
  type KeptEvent,
  type KeptHpa,
  type KeptPod,
  type KeptVpa,
} from './reduced-objects.js';

const PROGRAM = 'tandem-dashboard';

/** Runs the dashboard until SIGTERM/SIGINT; returns the exit code. */
export async function main(
  argv: readonly string[],
  version: string,
): Promise<number> {
  const started = startFlaggedApp(argv, version, {
    program: PROGRAM,
    parseFlags,
  });
  if (typeof started === 'number') return started;
  const { flags, telemetry } = started;
  const { logger } = telemetry;
  const connection = await loadKubeConnection({
    kubeconfigPath: flags.kubeconfig,
  });
  const get = kubeGetJson(connection);
  const recovered = (what: string) => (error: unknown) =>
    logger.warn({ what }, `recovered: ${describeError(error)}`);
  const scope =
    flags.namespace === undefined
      ? ''
      : `/namespaces/${encodeURIComponent(flags.namespace)}`;
  const collection = <T extends KeptVpa | KeptHpa | KeptPod | KeptEvent>(
    path: string,
    reduce: (object: unknown) => T,
  ) =>
    watchedCollection<T>({
      connection,
      get,
      path,
      pageSize: flags.listPageSize,
      reduce,
      onError: recovered(path),
    });
  const vpas = collection(
    `/apis/autoscaling.k8s.io/v1${scope}/verticalpodautoscalers`,
    reducedVpa,
  );
  const hpas = collection(
    `/apis/autoscaling/v2${scope}/horizontalpodautoscalers`,
    reducedHpa,
  );
  const pods = collection(`/api/v1${scope}/pods`, reducedPod);
  const events = collection(`/api/v1${scope}/events`, reducedEvent);
  // Before the caches start, so their first lists arrive as events too: a sample reads one
  // namespace's pods per workload, not every pod of the cluster.
  const podsByNamespace = indexByNamespace(pods);
  const eventsByNamespace = indexByNamespace(events);
  const targets = vpaTargetResolution({
    connection,
    namespace: flags.namespace,
    listPageSize: flags.listPageSize,
    onError: (kind, error) => recovered(kind)(error),
  });

  const sampler = fleetSampler(
    {
      vpas: () => vpas.list().map((kept) => kept.vpa),
      hpas: () => hpas.list().map((kept) => kept.hpa),
      pods: (namespace) =>
        podsByNamespace.list(namespace).filter((kept) => !kept.ignored),
      resolve: (vpaLike) => targets.resolve(vpaLike),
      usage: async (namespace) => {
        const { usages } = await podMetricsSource(get, namespace)();
        const byPod = new Map<string, Record<string, PerContainer[string]>>();
        for (const usage of usages) {
          const containers = byPod.get(usage.pod) ?? {};
          containers[usage.container] = {
            cpuMillicores: usage.cpuMillicores,
            memoryBytes: usage.memoryBytes,
          };
          byPod.set(usage.pod, containers);
        }
        return byPod;
      },
      onError: (what, error) => recovered(what)(error),
    },
    {
      ...DEFAULT_HISTORY_TIMINGS,
      sampleIntervalMs: flags.sampleIntervalMs,
      keepMs: flags.historyMs,
    },
  );

  const synced = () =>
    vpas.hasSynced &&
    hpas.hasSynced &&
    pods.hasSynced &&
    events.hasSynced &&
    sampler.lastSampleMs() !== undefined;
  exportHistory(telemetry.metrics, sampler);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(
    opsRouter({
      registry: telemetry.metrics,
      health: () => healthy,
      readiness: () =>
        synced() ? healthy : unhealthy('caches not synced or no sample yet'),
    }),
  );
  app.use(
    dashboardRoutes({
      sampler,
      podNamesOf: (key) => sampler.podNames(key),
      eventsAbout: (namespace, names) =>
        eventsByNamespace
          .list(namespace)
          .filter((kept) => names.has(kept.event.object.name))
          .map((kept): ObservedEvent => kept.event),
      memoryMs: flags.historyMs,
      olderHistory:
        flags.prometheus === undefined
          ? undefined
          : prometheusHistory(flags.prometheus, flags.sampleIntervalMs),
    }),
  );

  const stopping = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => stopping.abort());
  await Promise.all([vpas.start(), hpas.start(), pods.start(), events.start()]);
  logger.info('caches synced');
  const sampling = (async () => {
    while (!stopping.signal.aborted) {
      const started = Date.now();
      await sampler.sample().catch(recovered('sample'));
      // Written and encoded here, once a sample, so no request waits for it.
      await encodeJson(await prepareWorkloadsJson(sampler));
      await sleep(
        Math.max(0, flags.sampleIntervalMs - (Date.now() - started)),
        undefined,
        { signal: stopping.signal },
      ).catch(() => undefined);
    }
  })();

  const server = createServer(app);
  await new Promise<void>((resolve) =>
    server.listen(flags.address.port, flags.address.host, resolve),
  );
  const { port } = server.address() as AddressInfo;
  logger.info(
    { url: `http://${flags.address.host}:${port}/` },
    'dashboard listening',
  );

  await new Promise<void>((resolve) =>
    stopping.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  logger.info('stopping');
  await sampling;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([vpas.stop(), hpas.stop(), pods.stop(), events.stop()]);
  await telemetry.shutdown();
  return 0;
}
