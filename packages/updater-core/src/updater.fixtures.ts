import { trace } from '@opentelemetry/api';
import type {
  AddOperation,
  ControllerKey,
  ControllerReference,
} from '@tandem/admission';
import { TokenBucket, type EventSubject, type EventType } from '@tandem/kube';
import { createLogger, Registry } from '@tandem/telemetry';
import {
  InfeasibleResizes,
  replicaOwnerKey,
  type PodCondition,
  type ReplicaOwner,
  type UpdaterPod,
} from '@tandem/update-decisions';
import {
  UpdateMode,
  type LimitRange,
  type RecommendedContainerResources,
  type ResourceList,
  type VerticalPodAutoscaler,
  type VpaTarget,
} from '@tandem/vpa-api';
import {
  runUpdaterCycle,
  type UpdaterCycleContext,
  type UpdaterCycleSummary,
} from './cycle.js';
import type {
  ActionResult,
  EvictionOutcome,
  PodActions,
  ResizeOutcome,
} from './pod-actions.js';
import { vpaKey } from './pod-updates.js';
import { updaterMetrics } from './updater-metrics.js';
import type { VpaUpdateSettings } from './vpa-update.js';
import { PodEvaluations } from './pod-evaluations.js';

// Minimal pods and VPAs in the style of packages/update-decisions/src/updater.fixtures.ts
// (not exported by that package): namespace `demo`, ReplicaSet-owned pods labelled
// `app=<app>`, one container `app`.

export const NS = 'demo';
export const HOUR = 3_600_000;

/** The default recommendation: target 1 CPU / 1Gi, bounds 500m–2 CPU and 512Mi–2Gi. */
export const TARGET: ResourceList = { cpu: '1', memory: '1Gi' };
export const LOWER_BOUND: ResourceList = { cpu: '500m', memory: '512Mi' };
export const UPPER_BOUND: ResourceList = { cpu: '2', memory: '2Gi' };

export interface PodOptions {
  namespace?: string;
  /** The `app` label, which the fake target selectors match. Default `web`. */
  app?: string;
  /** Controlling owner; default ReplicaSet `<app>-1`; null for none. */
  owner?: { kind: string; name: string } | null;
  /** The `app` container's requests. Default: well below the lower bound (100m / 1Gi). */
  requests?: ResourceList;
  phase?: string;
  /** Default: a day before `now`. */
  startTime?: string;
  conditions?: PodCondition[];
  nodeName?: string;
  deletionTimestamp?: string;
}

/** A scheduled, running pod, started a day before `now`. */
export function podOf(
  name: string,
  now: Date,
  options: PodOptions = {},
): UpdaterPod {
  const app = options.app ?? 'web';
  const owner =
    options.owner === undefined
      ? { kind: 'ReplicaSet', name: `${app}-1` }
      : options.owner;
  return {
    metadata: {
      name,
      namespace: options.namespace ?? NS,
      uid: `uid-${name}`,
      labels: { app },
      ...(owner && {
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            uid: `uid-${owner.name}`,
            controller: true,
            ...owner,
          },
        ],
      }),
      ...(options.deletionTimestamp && {
        deletionTimestamp: options.deletionTimestamp,
      }),
    },
    spec: {
      containers: [
        {
          name: 'app',
          resources: {
            requests: options.requests ?? { cpu: '100m', memory: '1Gi' },
          },
        },
      ],
      nodeName: options.nodeName ?? 'node-a',
    },
    status: {
      phase: options.phase ?? 'Running',
      startTime:
        options.startTime ?? new Date(now.getTime() - 24 * HOUR).toISOString(),
      ...(options.conditions && { conditions: options.conditions }),
    },
  };
}

/**
 * The replicas of ReplicaSet `<app>-1`, named `<app>-1-<i>`, with the given CPU requests
 * (memory at target, so only CPU differs).
 */
export function replicaSetPods(
  cpuRequests: readonly string[],
  now: Date,
  options: Omit<PodOptions, 'requests'> = {},
): UpdaterPod[] {
  const app = options.app ?? 'web';
  return cpuRequests.map((cpu, index) =>
    podOf(`${app}-1-${index}`, now, {
      ...options,
      requests: { cpu, memory: TARGET['memory'] ?? '1Gi' },
    }),
  );
}

export interface VpaOptions {
  namespace?: string;
  mode?: UpdateMode;
  recommendation?: RecommendedContainerResources[] | null;
  minReplicas?: number;
  /** Default: a year ago, in order of creation among fixtures with the same time. */
  creationTimestamp?: string;
}

/** A VPA named `name` over Deployment `name`, with the default recommendation for `app`. */
export function vpaOf(
  name: string,
  options: VpaOptions = {},
): VerticalPodAutoscaler {
  const recommendation =
    options.recommendation === undefined
      ? [
          {
            containerName: 'app',
            target: TARGET,
            lowerBound: LOWER_BOUND,
            upperBound: UPPER_BOUND,
          },
        ]
      : options.recommendation;
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: {
      name,
      namespace: options.namespace ?? NS,
      uid: `uid-vpa-${name}`,
      creationTimestamp: options.creationTimestamp ?? '2025-01-01T00:00:00Z',
    },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      updatePolicy: {
        updateMode: options.mode ?? UpdateMode.Recreate,
        ...(options.minReplicas !== undefined && {
          minReplicas: options.minReplicas,
        }),
      },
    },
    ...(recommendation !== null && {
      status: { recommendation: { containerRecommendations: recommendation } },
    }),
  };
}

/** A `PodResizePending` / `PodResizeInProgress` condition, True. */
export function resizeCondition(
  type: 'PodResizePending' | 'PodResizeInProgress',
  fields: Partial<PodCondition> = {},
): PodCondition {
  return { type, status: 'True', ...fields };
}

/** What a fake action answers for a pod: an outcome, a full result, or an error to throw. */
export type Answer<Outcome> = Outcome | ActionResult<Outcome> | Error;

export interface ActionCall {
  action: 'evict' | 'resize' | 'annotate';
  /** `namespace/name`. */
  pod: string;
  patch?: readonly AddOperation[];
}

/** PodActions that record their calls and answer as told, by pod name (default: success). */
export class FakePodActions implements PodActions {
  readonly calls: ActionCall[] = [];
  readonly evictAnswers = new Map<string, Answer<EvictionOutcome>>();
  readonly resizeAnswers = new Map<string, Answer<ResizeOutcome>>();
  /** Answers for every pod without its own. */
  defaultEvict: Answer<EvictionOutcome> = 'evicted';
  defaultResize: Answer<ResizeOutcome> = 'resized';
  annotateError: Error | undefined;

  async evict(pod: UpdaterPod): Promise<ActionResult<EvictionOutcome>> {
    this.calls.push({ action: 'evict', pod: key(pod) });
    return answer(
      this.evictAnswers.get(pod.metadata?.name ?? '') ?? this.defaultEvict,
    );
  }

  async resize(
    pod: UpdaterPod,
    patch: readonly AddOperation[],
  ): Promise<ActionResult<ResizeOutcome>> {
    this.calls.push({ action: 'resize', pod: key(pod), patch });
    return answer(
      this.resizeAnswers.get(pod.metadata?.name ?? '') ?? this.defaultResize,
    );
  }

  async annotate(
    pod: UpdaterPod,
    patch: readonly AddOperation[],
  ): Promise<void> {
    this.calls.push({ action: 'annotate', pod: key(pod), patch });
    if (this.annotateError !== undefined) throw this.annotateError;
  }

  /** Pod names of the calls of one action, in call order. */
  podsOf(action: ActionCall['action']): string[] {
    return this.calls
      .filter((call) => call.action === action)
      .map((call) => call.pod.slice(call.pod.indexOf('/') + 1));
  }
}

function answer<Outcome>(given: Answer<Outcome>): ActionResult<Outcome> {
  if (given instanceof Error) throw given;
  return typeof given === 'object' && given !== null && 'outcome' in given
    ? given
    : { outcome: given as Outcome };
}

function key(pod: UpdaterPod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

export interface RecordedEvent {
  kind: string;
  name: string;
  type: EventType;
  reason: string;
  message: string;
  subject: EventSubject;
}

export interface Recovered {
  kind: string;
  message: string;
  fields?: object;
}

export interface FakeUpdaterOptions {
  vpas?: VerticalPodAutoscaler[];
  pods?: UpdaterPod[];
  /**
   * Top-most controllers by the pod owner's `kind/name`: null for none, an Error for an
   * unreadable chain. Default: `deploymentOf`.
   */
  controllers?: Record<string, ControllerReference | null | Error>;
  limitRanges?: LimitRange[];
  /**
   * Configured replicas by owner `kind/name` (namespace `demo`) or full `replicaOwnerKey`;
   * an owner not listed counts its pods among `pods`.
   */
  replicas?: Record<string, number>;
  /** Targets by `namespace/name` of the VPA; default: selector `app=<VPA name>`. */
  targets?: Record<string, VpaTarget>;
  intervalMs?: number;
  ignoredNamespaces?: string[];
  admissionControllerAlive?: () => Promise<boolean>;
  /** Default: always leading. */
  stillLeading?: () => boolean;
  settings?: {
    featureGates?: VpaUpdateSettings['featureGates'];
    thresholds?: VpaUpdateSettings['thresholds'];
    restriction?: VpaUpdateSettings['restriction'];
    inPlaceForAuto?: boolean;
  };
  evictionLimiter?: TokenBucket;
  inPlaceLimiter?: TokenBucket;
  dryRun?: boolean;
  /** Default: a `FakePodActions`. */
  actions?: PodActions;
  /** Default 0.15. */
  inPlaceMemoryLimitHeadroom?: number;
  /** Working sets in bytes by pod name, then container; an Error: metrics unreadable. */
  workingSets?: Record<string, Record<string, number>> | Error;
}

/** A cycle context over in-memory objects, with real limiters, metrics and logger. */
export interface FakeUpdater {
  context: UpdaterCycleContext;
  actions: FakePodActions;
  events: RecordedEvent[];
  recovered: Recovered[];
  sleeps: number[];
  logs: Record<string, unknown>[];
  registry: Registry;
  vpas: VerticalPodAutoscaler[];
  pods: UpdaterPod[];
  /** Calls of `resolveTarget`, by `namespace/name`. */
  resolved: string[];
  /** Calls of `topMostController`, by `namespace/kind/name` of the pod's owner. */
  walked: string[];
  /** Reads of `memoryWorkingSets`, by namespace. */
  metricsReads: string[];
  run(now: Date): Promise<UpdaterCycleSummary>;
  /** The sum of a counter's or gauge's values whose labels include `labels`. */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** The label sets and values a counter or gauge holds. */
  series(
    name: string,
  ): Promise<{ labels: Record<string, string | number>; value: number }[]>;
}

/**
 * A ReplicaSet's Deployment as its name gives it (`web-1` → `web`: a Deployment names its
 * ReplicaSets after itself); any other owner is its own top-most controller.
 */
export function deploymentOf(owner: ControllerKey): ControllerKey {
  return owner.kind === 'ReplicaSet'
    ? { kind: 'Deployment', name: owner.name.replace(/-[^-]*$/, '') }
    : { kind: owner.kind, name: owner.name };
}

export function fakeUpdater(options: FakeUpdaterOptions = {}): FakeUpdater {
  const vpas = [...(options.vpas ?? [])];
  const pods = [...(options.pods ?? [])];
  const events: RecordedEvent[] = [];
  const recovered: Recovered[] = [];
  const sleeps: number[] = [];
  const logs: Record<string, unknown>[] = [];
  const resolved: string[] = [];
  const walked: string[] = [];
  const metricsReads: string[] = [];
  const fake = new FakePodActions();
  const registry = new Registry();
  const metrics = updaterMetrics(registry);
  const logger = createLogger({
    serviceName: 'tandem-updater-test',
    serviceVersion: '0.0.0',
    env: { LOG_LEVEL: 'debug' },
    destination: {
      write: (chunk: string) => {
        for (const line of chunk.split('\n'))
          if (line !== '') logs.push(JSON.parse(line));
      },
    },
  });

  const configuredReplicas = async (owner: ReplicaOwner) => {
    const given =
      options.replicas?.[replicaOwnerKey(owner)] ??
      (owner.namespace === NS
        ? options.replicas?.[`${owner.kind}/${owner.name}`]
        : undefined);
    if (given !== undefined) return given;
    return pods.filter((pod) =>
      pod.metadata?.ownerReferences?.some(
        (ref) =>
          ref.controller === true &&
          ref.kind === owner.kind &&
          ref.name === owner.name &&
          pod.metadata?.namespace === owner.namespace,
      ),
    ).length;
  };

  const context: UpdaterCycleContext = {
    intervalMs: options.intervalMs ?? 60_000,
    ignoredNamespaces: new Set(options.ignoredNamespaces ?? []),
    listVpas: () => vpas,
    listPods: () => pods,
    resolveTarget: async (vpa) => {
      resolved.push(vpaKey(vpa));
      return (
        options.targets?.[vpaKey(vpa)] ?? {
          selector: { matchLabels: { app: vpa.metadata?.name ?? '' } },
        }
      );
    },
    topMostController: async (namespace, owner) => {
      walked.push(`${namespace}/${owner.kind}/${owner.name}`);
      const answer = options.controllers?.[`${owner.kind}/${owner.name}`];
      if (answer instanceof Error) throw answer;
      return answer === undefined ? deploymentOf(owner) : (answer ?? undefined);
    },
    admissionControllerAlive: options.admissionControllerAlive,
    stillLeading: options.stillLeading ?? (() => true),
    limitRanges: (namespace) =>
      (options.limitRanges ?? []).filter(
        (range) => range.metadata?.namespace === namespace,
      ),
    configuredReplicas,
    settings: {
      featureGates: options.settings?.featureGates ?? {},
      thresholds: options.settings?.thresholds ?? {},
      restriction: options.settings?.restriction ?? {},
      inPlaceForAuto: options.settings?.inPlaceForAuto ?? false,
    },
    actions: options.actions ?? fake,
    recordEvent: (subject, type, reason, message) => {
      events.push({
        kind: subject.kind,
        name: subject.name,
        type,
        reason,
        message,
        subject,
      });
    },
    evictionLimiter: options.evictionLimiter ?? new TokenBucket(-1, 1),
    inPlaceLimiter: options.inPlaceLimiter ?? new TokenBucket(-1, 1),
    infeasible: new InfeasibleResizes(),
    evaluations: new PodEvaluations(),
    dryRun: options.dryRun ?? false,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    // As main.ts: counted by kind, logged.
    recover: (kind, message, fields) => {
      recovered.push({ kind, message, fields });
      metrics.recoveredErrors.inc({ kind });
      logger.warn({ kind, ...fields }, message);
    },
    tracer: trace.getTracer('test'),
    logger,
    metrics,
    inPlaceMemoryLimitHeadroom: options.inPlaceMemoryLimitHeadroom ?? 0.15,
    memoryWorkingSets: async (namespace) => {
      metricsReads.push(namespace);
      const given = options.workingSets;
      if (given instanceof Error) throw given;
      return new Map(
        Object.entries(given ?? {}).map(([pod, containers]) => [
          pod,
          new Map(Object.entries(containers)),
        ]),
      );
    },
  };

  const series = async (name: string) => {
    const metric = registry.getSingleMetric(name);
    if (metric === undefined) throw new Error(`no metric named ${name}`);
    return (await metric.get()).values.map(({ labels, value }) => ({
      labels: labels as Record<string, string | number>,
      value,
    }));
  };

  return {
    context,
    actions: fake,
    events,
    recovered,
    sleeps,
    logs,
    registry,
    vpas,
    pods,
    resolved,
    walked,
    metricsReads,
    run: (now) => runUpdaterCycle(context, now),
    series,
    metric: async (name, labels = {}) =>
      (await series(name))
        .filter((sample) =>
          Object.entries(labels).every(
            ([label, value]) => String(sample.labels[label]) === value,
          ),
        )
        .reduce((sum, sample) => sum + sample.value, 0),
  };
}
