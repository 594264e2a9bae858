import type { V1Pod } from '@kubernetes/client-node';
import type { Span } from '@opentelemetry/api';
import { describeError } from '@tandem/kube';
import { STRATEGY_ANNOTATION } from '@tandem/strategies';
import { EVENT_REASON_ATTRIBUTE, inSpan } from '@tandem/telemetry';
import {
  gatedNativeSidecars,
  vpaReference,
  type Pod,
  type VerticalPodAutoscaler,
  type VerticalPodAutoscalerStatus,
} from '@tandem/vpa-api';
import { writeCheckpoints } from '../checkpoints/checkpoint-writer.js';
import { RecommenderEventReason } from '../event-reasons.js';
import {
  computeVpaStatus,
  largestNodeAllocatable,
  objectKey,
  orphanedCheckpoints,
  podSnapshotFromPod,
  type PodSnapshotResult,
  recommendationEvent,
  statusChanged,
  TextInterner,
  type TrackedVpa,
  vpaSelection,
} from '../model/index.js';
import { vpaObjectCounter } from '../recommender-metrics.js';
import type { CycleContext } from './cycle-context.js';
import { recordObservedOom } from './oom-recording.js';
import { QualityRecorder } from './quality.js';
import { drainQueue } from './worker-pool.js';

const GC_INTERVAL_MS = 3_600_000;

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
  const quality = qualityRecorder(context);
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
    context.observability.metrics.recoveredErrors.inc({ kind });
    context.observability.logger.warn({ kind, ...fields }, message);
  };
  const step = <T>(name: string, work: (span: Span) => Promise<T>) => {
    const stopTimer = context.observability.metrics.executionLatency.startTimer(
      {
        step: name,
      },
    );
    return inSpan(context.observability.tracer, name, {}, work).finally(() =>
      stopTimer(),
    );
  };
  const stopTotal = context.observability.metrics.executionLatency.startTimer({
    step: 'total',
  });

  await inSpan(
    context.observability.tracer,
    'recommender.cycle',
    {},
    async (root) => {
      await step('LoadVPAs', async (span) => {
        summary.vpas = await loadVpas(context, recover);
        span.setAttribute('vpas', summary.vpas);
      });
      let livePodKeys: string[] = [];
      await step('LoadPods', async (span) => {
        livePodKeys = loadPods(context, nowMs, recover);
        summary.pods = livePodKeys.length;
        span.setAttribute('pods', summary.pods);
      });
      await step('LoadMetrics', async (span) => {
        summary.samples = await loadMetrics(context, nowMs, recover, quality);
        span.setAttribute('samples', summary.samples);
      });
      await step('DeleteRemovedPods', async (span) => {
        span.setAttribute(
          'removed',
          context.state.model.removePodsNotIn(livePodKeys),
        );
      });
      await step('UpdateVPAs', async (span) => {
        summary.statusWrites = await updateVpas(
          context,
          nowMs,
          recover,
          quality,
        );
        span.setAttribute('writes', summary.statusWrites);
      });
      await step('MaintainCheckpoints', async (span) => {
        if (!context.settings.checkpointsEnabled) return;
        const { writes, vpasLeft } = await maintainCheckpoints(
          context,
          nowMs,
          recover,
        );
        summary.checkpointWrites = writes;
        span.setAttributes({ writes, vpasLeft });
        if (vpasLeft > 0)
          context.observability.logger.info(
            { vpasLeft },
            '--checkpoints-timeout reached; the VPAs left go first next cycle',
          );
        if (
          nowMs - context.state.lastCheckpointGcMs >=
          context.settings.checkpointsGcIntervalMs
        ) {
          context.state.lastCheckpointGcMs = nowMs;
          span.setAttribute(
            'orphansDeleted',
            await deleteOrphanedCheckpoints(context, recover),
          );
        }
      });
      await step('GarbageCollect', async (span) => {
        if (
          context.state.lastGcMs !== undefined &&
          nowMs - context.state.lastGcMs < GC_INTERVAL_MS
        )
          return;
        context.state.lastGcMs = nowMs;
        span.setAttribute('removed', context.state.model.garbageCollect(nowMs));
      });
      root.setAttributes({ ...summary });
    },
  );
  stopTotal();
  context.observability.metrics.aggregateContainerStates.set(
    context.state.model.aggregateCount,
  );
  return summary;
}

/** This cycle's quality observations; undefined (nothing observed) unless turned on. */
function qualityRecorder(context: CycleContext): QualityRecorder | undefined {
  if (context.settings.qualityMetrics !== true) return undefined;
  const { quality } = context.observability.metrics;
  if (quality === undefined)
    throw new Error(
      'settings.qualityMetrics needs the metrics built with recommenderMetrics(registry, { quality: true })',
    );
  return new QualityRecorder(quality, context.state.qualityLinks);
}

/** Upstream's `client_name` label for the metrics.k8s.io client. */
const METRICS_CLIENT_NAME = 'default-metrics-client';

type Recover = (
  kind: string,
  message: string,
  fields?: Record<string, unknown>,
) => void;

/** Links every VPA this recommender handles to its target's pods; exported for a term's start. */
export async function loadVpas(
  context: CycleContext,
  recover: Recover,
): Promise<number> {
  const selected = vpaSelection(
    context.inputs.listVpas(),
    context.settings.selection,
  );
  const keys: string[] = [];
  for (const vpa of selected) {
    const key = objectKey(
      vpa.metadata?.namespace ?? '',
      vpa.metadata?.name ?? '',
    );
    keys.push(key);
    const problemBefore = context.state.model.vpa(key)?.strategy.problem;
    const result = context.state.model.upsertVpa(
      vpa,
      await context.inputs.resolveTarget(vpa),
    );
    if (!result.ok)
      recover('vpa', `VPA ${key} not loaded: ${result.error.message}`, {
        vpa: key,
      });
    const tracked = context.state.model.vpa(key);
    const problem = tracked?.strategy.problem;
    // Reported once per problem (and once per term), not every cycle.
    if (
      tracked !== undefined &&
      problem !== undefined &&
      problem !== problemBefore
    )
      reportStrategyFallback(context, recover, tracked, problem);
  }
  context.state.model.removeVpasNotIn(keys);
  observeStrategies(context);
  return keys.length;
}

/**
 * A VPA whose strategy annotations do not read (it got in before the webhook, or past one
 * that was down) runs the default strategy: a log line, a recovered-error count, and a
 * Warning event on the VPA say so (ADR 0026).
 */
function reportStrategyFallback(
  context: CycleContext,
  recover: Recover,
  tracked: TrackedVpa,
  problem: string,
): void {
  const message = `${STRATEGY_ANNOTATION} not used, running the default strategy '${tracked.strategy.strategy.name}': ${problem}`;
  recover('strategy', `VPA ${tracked.key}: ${message}`, { vpa: tracked.key });
  context.observability.recordEvent?.(
    vpaReference(tracked.object),
    'Warning',
    RecommenderEventReason.StrategyFallback,
    message,
  );
}

function observeStrategies(context: CycleContext): void {
  const counts = new Map<string, number>();
  const { model } = context.state;
  for (const key of model.vpaKeys()) {
    const strategy = model.vpa(key)?.strategy;
    if (strategy === undefined) continue;
    const labels = `${strategy.strategy.name}\n${strategy.problem !== undefined}`;
    counts.set(labels, (counts.get(labels) ?? 0) + 1);
  }
  const gauge = context.observability.metrics.vpaStrategies;
  gauge.reset();
  for (const [labels, count] of counts) {
    const [strategy = '', fallback = ''] = labels.split('\n');
    gauge.set({ strategy, fallback }, count);
  }
}

interface PodReading {
  readonly snapshot: PodSnapshotResult;
  /** The pod's key in the model, made once per pod object. */
  readonly key: string;
  /** Containers whose requests came from the kubelet's status (in-place resize) or the spec. */
  readonly fromStatus: number;
  readonly fromSpec: number;
  /** The `NativeSidecar` gate the snapshot was read with. */
  readonly nativeSidecars: boolean;
}

/**
 * Pod snapshots by pod object: the caches replace an object when the pod changes, so an
 * unchanged pod keeps its snapshot, and the model recognises it and skips it (parsing every
 * pod's quantities every cycle was a tenth of a 50,000-container cycle).
 */
const podReadings = new WeakMap<V1Pod, PodReading>();

function readingOf(pod: V1Pod, nativeSidecars: boolean): PodReading {
  let reading = podReadings.get(pod);
  if (reading?.nativeSidecars !== nativeSidecars) {
    const fromStatus = reportedContainers(pod);
    reading = {
      snapshot: podSnapshotFromPod(
        gatedNativeSidecars(pod as Pod, { NativeSidecar: nativeSidecars }),
      ),
      key: objectKey(pod.metadata?.namespace ?? '', pod.metadata?.name ?? ''),
      nativeSidecars,
      fromStatus,
      fromSpec: (pod.spec?.containers.length ?? 0) - fromStatus,
    };
    podReadings.set(pod, reading);
  }
  return reading;
}

/** How many of the pod's containers have their resources in the status (in-place resize). */
function reportedContainers(pod: V1Pod): number {
  const statuses = pod.status?.containerStatuses;
  // Most pods report none: no closures made for them on a first cycle.
  if (statuses === undefined || statuses.length === 0) return 0;
  return (
    pod.spec?.containers.filter((container) =>
      statuses.some(
        (status) =>
          status.name === container.name && status.resources !== undefined,
      ),
    ).length ?? 0
  );
}

/** Upserts every listed pod; returns the keys of those the model tracks. */
function loadPods(
  context: CycleContext,
  nowMs: number,
  recover: Recover,
): string[] {
  const keys: string[] = [];
  let fromStatus = 0;
  let fromSpec = 0;
  for (const pod of context.inputs.listPods()) {
    const reading = readingOf(pod, context.settings.nativeSidecars === true);
    const { snapshot } = reading;
    if (!snapshot.ok) {
      recover('pod', `pod skipped: ${snapshot.error.message}`);
      continue;
    }
    fromStatus += reading.fromStatus;
    fromSpec += reading.fromSpec;
    if (context.state.model.upsertPod(snapshot.snapshot, nowMs, reading.key))
      keys.push(reading.key);
  }
  // Upstream counts each read of a container's resources; one increment per source per cycle.
  const { resourceReads } = context.observability.metrics;
  if (fromStatus > 0)
    resourceReads.inc({ source: 'Pod.Status.ContainerStatuses' }, fromStatus);
  if (fromSpec > 0)
    resourceReads.inc({ source: 'Pod.Spec.Containers' }, fromSpec);
  return keys;
}

async function loadMetrics(
  context: CycleContext,
  nowMs: number,
  recover: Recover,
  quality: QualityRecorder | undefined,
): Promise<number> {
  if (quality !== undefined) {
    // Upstream links aggregates to VPAs as both appear: by now (after LoadPods) all have.
    quality.link(context.state.model);
    context.state.qualityLinks = quality.links;
  }
  let samples = 0;
  try {
    const { usages, skipped } = await context.inputs.loadMetrics();
    context.observability.metrics.metricServerResponses.inc({
      is_error: 'false',
      client_name: METRICS_CLIENT_NAME,
    });
    if (skipped > 0)
      recover(
        'metrics',
        `${skipped} container metrics with unparseable quantities skipped`,
      );
    const { model } = context.state;
    for (const usage of usages) {
      const { namespace, pod, container, timeMs } = usage;
      // Unknown pods (not tracked, e.g. memory saver) and repeated samples are normal here.
      const used = model.addUsage(
        namespace,
        pod,
        container,
        timeMs,
        usage.cpuMillicores,
        usage.memoryBytes,
      );
      if (used.cpu) samples += 1;
      if (quality !== undefined && (used.cpu || used.memory))
        quality.observeUsage(
          used.aggregate,
          used.cpu ? usage.cpuMillicores : undefined,
          used.memory ? usage.memoryBytes : undefined,
        );
    }
  } catch (error) {
    context.observability.metrics.metricServerResponses.inc({
      is_error: 'true',
      client_name: METRICS_CLIENT_NAME,
    });
    recover(
      'metrics',
      `metrics.k8s.io unavailable, no samples this cycle: ${describeError(error)}`,
    );
  }
  for (const oom of context.inputs.takeOoms()) {
    const result = recordObservedOom(context, oom, nowMs);
    if (result.ok && result.filedMemoryBytes !== undefined)
      quality?.observeOom(
        context.state.model.aggregateOfContainer(
          oom.namespace,
          oom.podName,
          oom.containerName,
        ),
        result.filedMemoryBytes,
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
  quality: QualityRecorder | undefined,
): Promise<number> {
  const vpaObjects = vpaObjectCounter();
  const { capAtLargestNode } = context.settings;
  const { listNodes } = context.inputs;
  const largestNode =
    capAtLargestNode && listNodes !== undefined
      ? largestNodeAllocatable(listNodes())
      : undefined;
  const changed: {
    tracked: TrackedVpa;
    status: VerticalPodAutoscalerStatus;
  }[] = [];
  // The same for every VPA: made once a cycle, not 100,000 times.
  const statusOptions = {
    texts: new TextInterner(),
    nowMs,
    recommender: context.settings.recommenderConfig,
    format: context.settings.recommendationFormat,
    globalMaxAllowed: context.settings.globalMaxAllowed,
    integerCpuPostProcessor: context.settings.integerCpuPostProcessor,
    largestNodeAllocatable: largestNode,
  };
  for (const key of context.state.model.vpaKeys()) {
    const tracked = context.state.model.vpa(key);
    const status = computeVpaStatus(context.state.model, key, statusOptions);
    if (tracked === undefined || status === undefined) continue;
    const podCount = context.state.model.matchingPodCount(key);
    vpaObjects.add({
      updateMode: tracked.object.spec?.updatePolicy?.updateMode,
      hasRecommendation: holdsRecommendation(status),
      matchesPods: podCount > 0,
      unsupportedConfig: tracked.unsupportedReason !== undefined,
    });
    quality?.observeRecommendation(
      context.state.model,
      tracked,
      status.recommendation?.containerRecommendations ?? [],
      podCount,
    );
    if (statusChanged(tracked.object.status, status))
      changed.push({ tracked, status });
  }
  vpaObjects.observe(context.observability.metrics.vpaObjects);
  let writes = 0;
  await drainQueue(
    changed,
    context.settings.updateWorkers,
    async ({ tracked, status }) => {
      if (!context.inputs.stillLeading()) return;
      try {
        await inSpan(
          context.observability.tracer,
          'WriteVPAStatus',
          {
            vpa: objectKey(tracked.namespace, tracked.name),
            strategy: tracked.strategy.strategy.name,
            strategyFallback: tracked.strategy.problem !== undefined,
          },
          async (span) => {
            await context.store.writeStatus(
              tracked.namespace,
              tracked.name,
              status,
            );
            const { recordEvent } = context.observability;
            // The event goes to the recorder and the span only: with neither (no recorder
            // wired, a span that records nothing) it is not worked out for every status.
            if (recordEvent === undefined && !span.isRecording()) return;
            const event = recommendationEvent(
              tracked.object.status,
              status,
              tracked.object.metadata?.annotations?.[STRATEGY_ANNOTATION] ===
                undefined
                ? undefined
                : tracked.strategy.strategy.name,
            );
            if (event === undefined) return;
            span.setAttribute(EVENT_REASON_ATTRIBUTE, event.reason);
            recordEvent?.(
              vpaReference(tracked.object),
              'Normal',
              event.reason,
              event.message,
            );
          },
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
    context.observability.metrics.recommendationLatency.observe(
      (nowMs - createdMs) / 1000,
    );
}

async function maintainCheckpoints(
  context: CycleContext,
  nowMs: number,
  recover: Recover,
): Promise<{ writes: number; vpasLeft: number }> {
  const deadlineMs =
    context.inputs.clock() + context.settings.checkpointsTimeoutMs;
  return writeCheckpoints({
    model: context.state.model,
    nowMs,
    lastWrittenMs: context.state.lastCheckpointWrittenMs,
    workers: context.settings.updateWorkers,
    deadlinePassed: () => context.inputs.clock() >= deadlineMs,
    // A lost lease stops the step before the next write: the VPAs left wait for the next leader.
    mayWrite: context.inputs.stillLeading,
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
    const checkpoints = await context.store.listCheckpoints(
      context.settings.namespace,
    );
    for (const orphan of orphanedCheckpoints(
      checkpoints,
      context.inputs.allVpaKeys(),
      context.settings.selection.ignoredNamespaces,
    )) {
      if (!context.inputs.stillLeading()) break;
      const name = orphan.metadata?.name ?? '';
      await context.store.deleteCheckpoint(
        orphan.metadata?.namespace ?? '',
        name,
      );
      context.observability.logger.info(
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
