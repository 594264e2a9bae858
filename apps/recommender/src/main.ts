import {
  describeError,
  eventRecorder,
  kubeConnectionOf,
  limitRequestRate,
} from '@tandem/kube';
import {
  loadKubeConfig,
  startLeadership,
  vpaClient,
} from '@tandem/kube/clients';
import {
  type CycleContext,
  endTerm,
  freshCycleState,
  loadCheckpoints,
  recommenderMetrics,
  runCycle,
  startTerm,
  strategySettings,
} from '@tandem/recommender-core';
import { FeatureGate } from '@tandem/vpa-api';
import {
  cycleLoop,
  healthy,
  startOpsServer,
  startTelemetry,
  unhealthy,
} from '@tandem/telemetry';
import { FlagError, HelpRequested, parseFlags } from './config/flags.js';
import { clusterInputs } from './inputs/cluster-inputs.js';
import { loadPrometheusHistory } from './inputs/load-prometheus-history.js';

/** Runs the recommender until SIGTERM/SIGINT; returns the exit code. */
export async function main(
  argv: readonly string[],
  version: string,
): Promise<number> {
  let flags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    if (error instanceof HelpRequested) {
      process.stdout.write(error.help);
      return 0;
    }
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
  // The Lease gets a client of its own, unpaced, as upstream's leader election gets its own
  // clientset: its renewals never queue behind a busy cycle's requests past the deadline.
  const leaseKubeConfig = loadKubeConfig({ kubeconfigPath: flags.kubeconfig });
  limitRequestRate(kubeConfig, flags.kubeApiQps, flags.kubeApiBurst);
  const namespace = flags.vpaObjectNamespace;

  const cluster = clusterInputs(kubeConfig, namespace, logger, {
    listPageSize: flags.listPageSize,
    readNodes: flags.capAtLargestNode,
  });
  const leadership = startLeadership(flags, leaseKubeConfig, logger);
  const settings: CycleContext['settings'] = {
    selection: {
      recommenderName: flags.recommenderName,
      namespace,
      ignoredNamespaces: flags.ignoredVpaObjectNamespaces,
    },
    recommenderConfig: flags.estimators.recommender,
    recommendationFormat: flags.estimators.format,
    globalMaxAllowed: flags.globalMaxAllowed,
    integerCpuPostProcessor: flags.integerCpuPostProcessor,
    capAtLargestNode: flags.capAtLargestNode,
    capOomBumpUpAtMaxAllowed: flags.capOomBumpUpAtMaxAllowed,
    qualityMetrics: flags.qualityMetrics,
    nativeSidecars: flags.featureGates[FeatureGate.NativeSidecar] === true,
    namespace,
    checkpointsEnabled: flags.storage === 'checkpoint',
    checkpointsGcIntervalMs: flags.checkpointsGcIntervalMs,
    checkpointsTimeoutMs: flags.checkpointsTimeoutMs,
    updateWorkers: flags.updateWorkerCount,
    model: {
      memorySaver: flags.memorySaver,
      aggregation: flags.estimators.aggregation,
      strategies: strategySettings(
        flags.defaultStrategy,
        flags.estimators.recommender,
        flags.estimators.aggregation,
        flags.featureGates[FeatureGate.PerVPAConfig] === true,
      ),
    },
  };
  const metrics = recommenderMetrics(telemetry.metrics, {
    quality: flags.qualityMetrics,
  });
  const recordEvent = eventRecorder(
    kubeConnectionOf(kubeConfig),
    'tandem-recommender',
    {
      recovered: (error) => {
        metrics.recoveredErrors.inc({ kind: 'event' });
        logger.warn(`event not written: ${describeError(error)}`);
      },
    },
  );
  // The term whose state the cycle holds: a write is allowed only while it still leads.
  let termSinceMs: number | undefined;
  const context: CycleContext = {
    settings,
    inputs: {
      ...cluster.inputs,
      stillLeading: () =>
        termSinceMs !== undefined &&
        leadership.leadingSinceMs() === termSinceMs,
    },
    // The VPA client the e2e harness uses: status `add /status`, checkpoints `replace
    // /status` or create, deletes tolerating 404.
    store: vpaClient(kubeConfig),
    observability: {
      tracer: telemetry.tracer,
      logger,
      metrics,
      recordEvent,
    },
    state: freshCycleState(settings, Date.now()),
  };
  const loadHistory = (term: CycleContext) =>
    flags.storage === 'prometheus'
      ? loadPrometheusHistory(
          { model: term.state.model, ...term.observability },
          flags.prometheus,
          namespace,
        )
      : loadCheckpoints({
          model: term.state.model,
          store: term.store,
          namespace,
          logger,
          metrics: term.observability.metrics,
          recordEvent,
        });

  const loop = cycleLoop({
    intervalMs: flags.recommenderIntervalMs,
    leadership,
    terms: {
      start: async () => {
        const since = leadership.leadingSinceMs();
        await startTerm(context, loadHistory);
        termSinceMs = since;
      },
      end: () => {
        termSinceMs = undefined;
        endTerm(context);
      },
    },
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
      cluster.synced() ? healthy : unhealthy('caches not synced yet'),
  });
  logger.info({ url: ops.url }, 'ops server listening');

  const stopping = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => stopping.abort());

  await cluster.start();
  await loop.run(stopping.signal);

  logger.info('stopping');
  await leadership.stop();
  await Promise.all([cluster.stop(), ops.close()]);
  await telemetry.shutdown();
  return 0;
}
