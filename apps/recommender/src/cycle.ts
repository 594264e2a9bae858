import type { V1Pod } from '@kubernetes/client-node';
import { describeError } from '@tandem/kube';
import { inSpan, type Logger } from '@tandem/telemetry';
import type {
  Pod,
  ResourceList,
  VerticalPodAutoscaler,
  VerticalPodAutoscalerStatus,
} from '@tandem/vpa-api';
import type { Span, Tracer } from '@opentelemetry/api';
import type {
  RecommendationFormat,
  RecommenderConfig,
} from '@tandem/estimators';
import { writeCheckpoints } from './checkpoint-writer.js';
import type { PodContainerUsage } from '@tandem/kube';
import {
  type ClusterModel,
  computeVpaStatus,
  objectKey,
  type ObservedOom,
  type TrackedVpa,
  orphanedCheckpoints,
  podSnapshotFromPod,
  type PodSnapshotResult,
  statusChanged,
  vpaSelection,
  type VpaSelectionOptions,
  type VpaTarget,
} from './model/index.js';
import type { RecommenderMetrics } from './recommender-metrics.js';
import type { VpaStore } from './vpa-store.js';
import { drainQueue } from './worker-pool.js';

const GC_INTERVAL_MS = 3_600_000;

/** Everything one cycle reads from and writes to; main.ts wires the real ones. */
export interface CycleContext {
  model: ClusterModel;
  selection: VpaSelectionOptions;
  /** Upstream's estimator flags: percentiles, margin, minimums, confidence intervals. */
  recommenderConfig: RecommenderConfig;
  /** Upstream's rounding and `--humanize-memory` flags. */
  recommendationFormat: RecommendationFormat;
  /** Caps for resources a VPA's policy leaves open (the global max-allowed flags). */
  globalMaxAllowed: ResourceList;
  listVpas: () => VerticalPodAutoscaler[];
  listPods: () => V1Pod[];
  resolveTarget: (vpa: VerticalPodAutoscaler) => Promise<VpaTarget>;
  loadMetrics: () => Promise<{ usages: PodContainerUsage[]; skipped: number }>;
  takeOoms: () => ObservedOom[];
  store: VpaStore;
  tracer: Tracer;
  logger: Logger;
  metrics: RecommenderMetrics;
  /** When garbage collection last ran (undefined: never, so the first cycle runs it). */
  lastGcMs: number | undefined;
  /** Every VPA key of the cluster (any recommender): checkpoints of others are kept. */
  allVpaKeys: () => Set<string>;
  namespace: string | undefined;
  /** False with `--storage=prometheus`: history then comes from Prometheus, and checkpoints are neither read nor written. */
  checkpointsEnabled: boolean;
  checkpointsGcIntervalMs: number;
  /** `--checkpoints-timeout`: MaintainCheckpoints stops starting VPAs after this long. */
  checkpointsTimeoutMs: number;
  /** When each VPA's checkpoints were last all written: the oldest go first. */
  lastCheckpointWrittenMs: Map<string, number>;
  /** `--update-worker-count`: status and checkpoint writes in flight at once. */
  updateWorkers: number;
  /** Wall-clock milliseconds, for step deadlines. */
  clock: () => number;
  /** When orphaned checkpoints were last deleted; the first run is one interval after start. */
  lastCheckpointGcMs: number;
}

export interface CycleSummary {
  vpas: number;
  pods: number;
  samples: number;
  statusWrites: number;
  checkpointWrites: number;
  errors: number;
}

/**
 * One recommender cycle, upstream's steps in upstream's order, each in its own span and
 * latency bucket. A failure touching one object is logged, counted and skipped; only a
 * failure that leaves the step without input (e.g. the metrics API is down) ends the step,
 * and the model keeps all history either way.
 */
export async function runCycle(
  context: CycleContext,
  nowMs: number,
): Promise<CycleSummary> {
  const summary: CycleSummary = {
    vpas: 0,
    pods: 0,
    samples: 0,
    statusWrites: 0,
    checkpointWrites: 0,
    errors: 0,
  };
  const recover = (
    kind: string,
    message: string,
    fields: Record<string, unknown> = {},
  ) => {
    summary.errors += 1;
    context.metrics.recoveredErrors.inc({ kind });
    context.logger.warn({ kind, ...fields }, message);
  };
  const step = <T>(name: string, work: (span: Span) => Promise<T>) => {
    const stopTimer = context.metrics.executionLatency.startTimer({
      step: name,
    });
    return inSpan(context.tracer, name, {}, work).finally(() => stopTimer());
  };
  const stopTotal = context.metrics.executionLatency.startTimer({
    step: 'total',
  });

  await inSpan(context.tracer, 'recommender.cycle', {}, async (root) => {
    await step('LoadVPAs', async (span) => {
      summary.vpas = await loadVpas(context, recover);
      span.setAttribute('vpas', summary.vpas);
    });
    await step('LoadPods', async (span) => {
      summary.pods = loadPods(context, nowMs, recover);
      span.setAttribute('pods', summary.pods);
    });
    await step('LoadMetrics', async (span) => {
      summary.samples = await loadMetrics(context, recover);
      span.setAttribute('samples', summary.samples);
    });
    await step('UpdateVPAs', async (span) => {
      summary.statusWrites = await updateVpas(context, nowMs, recover);
      span.setAttribute('writes', summary.statusWrites);
    });
    await step('MaintainCheckpoints', async (span) => {
      if (!context.checkpointsEnabled) return;
      const { writes, vpasLeft } = await maintainCheckpoints(
        context,
        nowMs,
        recover,
      );
      summary.checkpointWrites = writes;
      span.setAttributes({ writes, vpasLeft });
      if (vpasLeft > 0)
        context.logger.info(
          { vpasLeft },
          '--checkpoints-timeout reached; the VPAs left go first next cycle',
        );
      if (
        nowMs - context.lastCheckpointGcMs >=
        context.checkpointsGcIntervalMs
      ) {
        context.lastCheckpointGcMs = nowMs;
        span.setAttribute(
          'orphansDeleted',
          await deleteOrphanedCheckpoints(context, recover),
        );
      }
    });
    await step('GarbageCollect', async (span) => {
      if (
        context.lastGcMs !== undefined &&
        nowMs - context.lastGcMs < GC_INTERVAL_MS
      )
        return;
      context.lastGcMs = nowMs;
      span.setAttribute('removed', context.model.garbageCollect(nowMs));
    });
    root.setAttributes({ ...summary });
  });
  stopTotal();
  context.metrics.aggregateContainerStates.set(context.model.aggregateCount);
  return summary;
}

type Recover = (
  kind: string,
  message: string,
  fields?: Record<string, unknown>,
) => void;

/** Links every VPA this recommender handles to its target's pods; exported for start-up. */
export async function loadVpas(
  context: CycleContext,
  recover: Recover,
): Promise<number> {
  const selected = vpaSelection(context.listVpas(), context.selection);
  const keys: string[] = [];
  for (const vpa of selected) {
    const key = objectKey(
      vpa.metadata?.namespace ?? '',
      vpa.metadata?.name ?? '',
    );
    keys.push(key);
    const result = context.model.upsertVpa(
      vpa,
      await context.resolveTarget(vpa),
    );
    if (!result.ok)
      recover('vpa', `VPA ${key} not loaded: ${result.error.message}`, {
        vpa: key,
      });
  }
  context.model.removeVpasNotIn(keys);
  return keys.length;
}

/**
 * Pod snapshots by pod object: the caches replace an object when the pod changes, so an
 * unchanged pod keeps its snapshot, and the model recognises it and skips it (parsing every
 * pod's quantities every cycle was a tenth of a 50,000-container cycle).
 */
const podSnapshots = new WeakMap<V1Pod, PodSnapshotResult>();

function snapshotOf(pod: V1Pod): PodSnapshotResult {
  let snapshot = podSnapshots.get(pod);
  if (snapshot === undefined) {
    snapshot = podSnapshotFromPod(pod as Pod);
    podSnapshots.set(pod, snapshot);
  }
  return snapshot;
}

function loadPods(
  context: CycleContext,
  nowMs: number,
  recover: Recover,
): number {
  const keys: string[] = [];
  for (const pod of context.listPods()) {
    const snapshot = snapshotOf(pod);
    if (!snapshot.ok) {
      recover('pod', `pod skipped: ${snapshot.error.message}`);
      continue;
    }
    if (context.model.upsertPod(snapshot.snapshot, nowMs)) {
      keys.push(objectKey(snapshot.snapshot.namespace, snapshot.snapshot.name));
    }
  }
  context.model.removePodsNotIn(keys);
  return keys.length;
}

async function loadMetrics(
  context: CycleContext,
  recover: Recover,
): Promise<number> {
  let samples = 0;
  try {
    const { usages, skipped } = await context.loadMetrics();
    context.metrics.metricServerResponses.inc({
      is_error: 'false',
      client_name: 'metrics.k8s.io',
    });
    if (skipped > 0)
      recover(
        'metrics',
        `${skipped} container metrics with unparseable quantities skipped`,
      );
    for (const usage of usages) {
      const { namespace, pod, container, timeMs } = usage;
      // Unknown pods (not tracked, e.g. memory saver) and repeated samples are normal here.
      if (
        context.model.addSample(namespace, pod, container, {
          timeMs,
          resource: 'cpu',
          usage: usage.cpuMillicores,
        }).ok
      )
        samples += 1;
      context.model.addSample(namespace, pod, container, {
        timeMs,
        resource: 'memory',
        usage: usage.memoryBytes,
      });
    }
  } catch (error) {
    context.metrics.metricServerResponses.inc({
      is_error: 'true',
      client_name: 'metrics.k8s.io',
    });
    recover(
      'metrics',
      `metrics.k8s.io unavailable, no samples this cycle: ${describeError(error)}`,
    );
  }
  for (const oom of context.takeOoms()) {
    const result = context.model.recordOom(
      oom.namespace,
      oom.podName,
      oom.containerName,
      oom.timeMs,
      oom.memoryBytes,
    );
    if (!result.ok)
      recover(
        'oom',
        `OOM of ${oom.namespace}/${oom.podName}/${oom.containerName} not recorded: ${result.error.message}`,
      );
  }
  return samples;
}

async function updateVpas(
  context: CycleContext,
  nowMs: number,
  recover: Recover,
): Promise<number> {
  context.metrics.vpaObjects.reset();
  const changed: {
    tracked: TrackedVpa;
    status: VerticalPodAutoscalerStatus;
  }[] = [];
  for (const key of context.model.vpaKeys()) {
    const tracked = context.model.vpa(key);
    const status = computeVpaStatus(context.model, key, {
      nowMs,
      recommender: context.recommenderConfig,
      format: context.recommendationFormat,
      globalMaxAllowed: context.globalMaxAllowed,
    });
    if (tracked === undefined || status === undefined) continue;
    context.metrics.vpaObjects.inc({
      // Upstream's labels and values: an unset mode counts as Auto, and a v1 object is
      // reported as api "v1beta2" (upstream never learnt to say v1), so dashboards carry over.
      update_mode: tracked.object.spec?.updatePolicy?.updateMode || 'Auto',
      has_recommendation: String(holdsRecommendation(status)),
      api: 'v1beta2',
      matches_pods: String(context.model.matchingPodCount(key) > 0),
      unsupported_config: String(tracked.unsupportedReason !== undefined),
    });
    if (statusChanged(tracked.object.status, status))
      changed.push({ tracked, status });
  }
  let writes = 0;
  await drainQueue(
    changed,
    context.updateWorkers,
    async ({ tracked, status }) => {
      try {
        await context.store.writeStatus(
          tracked.namespace,
          tracked.name,
          status,
        );
        writes += 1;
        if (
          holdsRecommendation(status) &&
          !holdsRecommendation(tracked.object.status)
        )
          observeRecommendationLatency(context, tracked.object, nowMs);
      } catch (error) {
        const key = objectKey(tracked.namespace, tracked.name);
        recover(
          'status-write',
          `status of VPA ${key} not written: ${describeError(error)}`,
          { vpa: key },
        );
      }
    },
  );
  return writes;
}

function holdsRecommendation(
  status: VerticalPodAutoscalerStatus | undefined,
): boolean {
  return (status?.recommendation?.containerRecommendations?.length ?? 0) > 0;
}

function observeRecommendationLatency(
  context: CycleContext,
  vpa: VerticalPodAutoscaler,
  nowMs: number,
): void {
  const createdMs = Date.parse(vpa.metadata?.creationTimestamp ?? '');
  if (!Number.isNaN(createdMs))
    context.metrics.recommendationLatency.observe((nowMs - createdMs) / 1000);
}

async function maintainCheckpoints(
  context: CycleContext,
  nowMs: number,
  recover: Recover,
): Promise<{ writes: number; vpasLeft: number }> {
  const deadlineMs = context.clock() + context.checkpointsTimeoutMs;
  return writeCheckpoints({
    model: context.model,
    nowMs,
    lastWrittenMs: context.lastCheckpointWrittenMs,
    workers: context.updateWorkers,
    deadlinePassed: () => context.clock() >= deadlineMs,
    write: (checkpoint) => context.store.writeCheckpoint(checkpoint),
    onWriteError: (checkpoint, key, error) =>
      recover(
        'checkpoint-write',
        `checkpoint ${checkpoint.metadata?.name} of VPA ${key} not written: ${describeError(error)}`,
      ),
  });
}

async function deleteOrphanedCheckpoints(
  context: CycleContext,
  recover: Recover,
): Promise<number> {
  let deleted = 0;
  try {
    const checkpoints = await context.store.listCheckpoints(context.namespace);
    for (const orphan of orphanedCheckpoints(
      checkpoints,
      context.allVpaKeys(),
      context.selection.ignoredNamespaces,
    )) {
      const name = orphan.metadata?.name ?? '';
      await context.store.deleteCheckpoint(
        orphan.metadata?.namespace ?? '',
        name,
      );
      context.logger.info(
        { checkpoint: name, vpa: orphan.spec?.vpaObjectName },
        'orphaned checkpoint deleted',
      );
      deleted += 1;
    }
  } catch (error) {
    recover(
      'checkpoint-gc',
      `orphaned checkpoints not collected: ${describeError(error)}`,
    );
  }
  return deleted;
}
