import { trace } from '@opentelemetry/api';
import { TokenBucket } from '@tandem/kube';
import { createLogger, createRegistry } from '@tandem/telemetry';
import {
  DEFAULT_IN_PLACE_MEMORY_LIMIT_HEADROOM,
  InfeasibleResizes,
  UPDATER_DEFAULTS,
  type UpdaterPod,
} from '@tandem/update-decisions';
import {
  PodEvaluations,
  runUpdaterCycle,
  updaterMetrics,
  type UpdaterCycleContext,
  type UpdaterCycleSummary,
} from '@tandem/updater-core';
import {
  FeatureGate,
  formatCpuMillicores,
  formatMemoryBytes,
  PodAnnotation,
  UpdateMode,
  VPA_API_VERSION,
  VPA_KIND,
  StartupBoostType,
  type FeatureGates,
  type LimitRange,
  type RecommendedContainerResources,
  type ResourceList,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { cpuMs, heapUsedAfterGc } from './measure.js';
import { medianWithSpread, type Figure } from './report.js';
import { seededRandom } from '@tandem/estimators';

const NAMESPACES = 100;
const VPAS_PER_NAMESPACE = 20;
const VPAS = NAMESPACES * VPAS_PER_NAMESPACE;
const REPLICAS = 10;
/** Of each VPA's pods, this many still run with requests from before its recommendation. */
const STALE_PODS_PER_VPA = 3;
/** Every tenth namespace has a LimitRange. */
const LIMIT_RANGE_EVERY = 10;
const RAILS_GATES: FeatureGates = {
  [FeatureGate.CPUStartupBoost]: true,
  [FeatureGate.NativeSidecar]: true,
};
const WARM_UP_CYCLES = 3;
const MEASURED_CYCLES = 9;
const TARGET_CPU_MS = 200;
/**
 * The first cycle after a start (or after every VPA got a new recommendation) works out
 * every pod afresh; a restart should not cost much more than a steady cycle.
 */
const FIRST_CYCLE_TARGET_CPU_MS = 300;
/** Cycles right after every VPA got a new recommendation, after the measured ones. */
const RENEWED_CYCLES = 3;
const HOUR_MS = 3_600_000;
const MIB = 2 ** 20;
const POD_TEMPLATE_HASH = '7c9b4d5f8';

/**
 * Update modes by a VPA's slot in its namespace (20 slots): 30 % Recreate, 30 %
 * InPlaceOrRecreate, 20 % Auto (evicts, as Recreate) and 20 % Initial or Off, which the
 * cycle filters out.
 */
const MODES: readonly UpdateMode[] = [
  ...Array<UpdateMode>(6).fill(UpdateMode.Recreate),
  ...Array<UpdateMode>(6).fill(UpdateMode.InPlaceOrRecreate),
  ...Array<UpdateMode>(4).fill(UpdateMode.Auto),
  ...Array<UpdateMode>(2).fill(UpdateMode.Initial),
  ...Array<UpdateMode>(2).fill(UpdateMode.Off),
];

/** What every cycle does: each acted-on VPA's stale pods are evicted or resized in place. */
const EXPECTED = (() => {
  const count = (modes: readonly UpdateMode[]) =>
    NAMESPACES * MODES.filter((mode) => modes.includes(mode)).length;
  const vpas = count([
    UpdateMode.Recreate,
    UpdateMode.Auto,
    UpdateMode.InPlaceOrRecreate,
  ]);
  return {
    vpas,
    updates: vpas * STALE_PODS_PER_VPA,
    evicted: count([UpdateMode.Recreate, UpdateMode.Auto]) * STALE_PODS_PER_VPA,
  };
})();

/**
 * One updater cycle (`runUpdaterCycle`, then forgetting gone pods' infeasible resizes, as
 * main.ts's loop does) over 2,000 VPAs and 20,000 pods read from in-memory caches: CPU and
 * wall time, median of 9 cycles after 3 warm-up ones, then the heap the caches and the
 * updater's state hold, then 3 cycles each right after every VPA got a new recommendation.
 * Evictions and resizes are accepted at once by in-memory pod actions, so every decision,
 * patch, metric, log call and event of a real cycle is made; nothing changes between
 * cycles (but the VPAs' versions in the last three), so each one acts on the same pods.
 */
export async function updaterCycleFigures(): Promise<Figure[]> {
  const heapBefore = heapUsedAfterGc();
  const now = Date.now();
  const cluster = syntheticUpdaterCluster(now, seededRandom(7));
  const context = inMemoryUpdaterContext(cluster);

  const timedCycle = async () => {
    context.infeasible = new InfeasibleResizes();
    const wallStart = performance.now();
    const { ms, value: summary } = await cpuMs(async () => {
      const result = await runUpdaterCycle(context, new Date());
      context.infeasible.retainOnly(
        context.listPods().map((pod) => pod.metadata?.uid ?? ''),
      );
      return result;
    });
    const wallMs = performance.now() - wallStart;
    checkSummary(summary);
    return { cpuMs: ms, wallMs };
  };

  // The first cycle works out every pod's evaluation; later ones reuse them.
  const cold = await timedCycle();
  for (let i = 1; i < WARM_UP_CYCLES; i += 1) await timedCycle();
  const runs = [];
  for (let i = 0; i < MEASURED_CYCLES; i += 1) runs.push(await timedCycle());
  const heapAfter = heapUsedAfterGc();
  const cpu = medianWithSpread(runs.map((run) => run.cpuMs));
  // Every VPA gets a new recommendation (a new object and resourceVersion, as the VPA
  // cache's watch delivers it): every pod is evaluated afresh in a process whose code V8
  // has already compiled, unlike the first cycle's.
  const renewed = [];
  for (let i = 0; i < RENEWED_CYCLES; i += 1) {
    cluster.vpas = cluster.vpas.map(renewedRecommendation);
    renewed.push(await timedCycle());
  }

  const scale = `${VPAS.toLocaleString('en-US')} VPAs, ${cluster.pods.length.toLocaleString('en-US')} pods, ${EXPECTED.updates.toLocaleString('en-US')} updated`;
  return [
    {
      name: `updater cycle CPU (${scale})`,
      ...cpu,
      unit: 'ms',
      target: { comparison: '<=', value: TARGET_CPU_MS },
    },
    {
      name: 'the same as a ratio to its target (1 = exactly on target)',
      value: cpu.value / TARGET_CPU_MS,
      unit: '× target',
      target: undefined,
    },
    {
      name: 'first cycle CPU (every pod evaluated afresh)',
      value: cold.cpuMs,
      unit: 'ms',
      target: { comparison: '<=', value: FIRST_CYCLE_TARGET_CPU_MS },
    },
    {
      name: 'cycle after every VPA got a new recommendation, CPU',
      ...medianWithSpread(renewed.map((run) => run.cpuMs)),
      unit: 'ms',
      target: { comparison: '<=', value: FIRST_CYCLE_TARGET_CPU_MS },
    },
    {
      name: 'updater cycle, wall',
      ...medianWithSpread(runs.map((run) => run.wallMs)),
      unit: 'ms',
      target: undefined,
    },
    {
      name: 'heap retained by the caches (VPAs, pods, LimitRanges) and updater state',
      value: (heapAfter - heapBefore) / MIB,
      unit: 'MiB',
      target: undefined,
    },
    {
      name: 'heap after GC, whole bench process',
      value: heapAfter / MIB,
      unit: 'MiB',
      target: undefined,
    },
  ];
}

/**
 * The VPA as the watch hands it out after the recommender wrote the same values anew: a
 * new object throughout, status included (decoded from the event's JSON), so nothing kept
 * per recommendation object from the last cycle is found again.
 */
function renewedRecommendation(
  vpa: VerticalPodAutoscaler,
): VerticalPodAutoscaler {
  return {
    ...vpa,
    ...(vpa.status && { status: structuredClone(vpa.status) }),
    metadata: {
      ...vpa.metadata,
      resourceVersion: String(Number(vpa.metadata?.resourceVersion) + VPAS),
    },
  };
}

/** Every cycle must do the same work without a single recovered error. */
function checkSummary(summary: UpdaterCycleSummary): void {
  if (
    summary.skipped !== undefined ||
    summary.errors > 0 ||
    summary.vpas !== EXPECTED.vpas ||
    summary.pods !== EXPECTED.vpas * REPLICAS ||
    summary.evicted !== EXPECTED.evicted ||
    summary.resized !== EXPECTED.updates - EXPECTED.evicted
  )
    throw new Error(
      `unexpected updater cycle (want ${JSON.stringify(EXPECTED)}): ${JSON.stringify(summary)}`,
    );
}

interface SyntheticUpdaterCluster {
  vpas: VerticalPodAutoscaler[];
  pods: UpdaterPod[];
  limitRanges: Map<string, LimitRange[]>;
}

/**
 * The updater's caches on a cluster of 100 namespaces of 20 Deployments each, every one
 * with a VPA and 10 pods of a ReplicaSet; half the workloads run a sidecar. Recommendations
 * are spread over 50m–2 cores and 64Mi–4Gi; 7 of each workload's pods already request the
 * target (created after the recommendation), 3 still request 40 % of it, below the lower
 * bound: so 30 % of the pods of the acted-on VPAs are candidates.
 */
function syntheticUpdaterCluster(
  nowMs: number,
  random: () => number,
): SyntheticUpdaterCluster {
  const vpas: VerticalPodAutoscaler[] = [];
  const pods: UpdaterPod[] = [];
  const limitRanges = new Map<string, LimitRange[]>();
  for (let n = 0; n < NAMESPACES; n += 1) {
    const namespace = `team-${n}`;
    if (n % LIMIT_RANGE_EVERY === 0)
      limitRanges.set(namespace, [namespaceLimitRange(namespace)]);
    for (let slot = 0; slot < VPAS_PER_NAMESPACE; slot += 1) {
      const w = n * VPAS_PER_NAMESPACE + slot;
      const workload = syntheticWorkload(
        namespace,
        w,
        MODES[slot] ?? UpdateMode.Recreate,
        nowMs,
        random,
      );
      vpas.push(workload.vpa);
      pods.push(...workload.pods);
    }
  }
  return { vpas, pods, limitRanges };
}

interface ContainerSize {
  name: string;
  cpuMillicores: number;
  memoryBytes: number;
}

function syntheticWorkload(
  namespace: string,
  w: number,
  mode: UpdateMode,
  nowMs: number,
  random: () => number,
): { vpa: VerticalPodAutoscaler; pods: UpdaterPod[] } {
  const name = `workload-${w}`;
  const sizes: ContainerSize[] = [
    {
      name: 'app',
      cpuMillicores: Math.round(50 * Math.pow(40, random())),
      memoryBytes: Math.round(64 * MIB * Math.pow(64, random())),
    },
  ];
  if (w % 2 === 0)
    sizes.push({
      name: 'sidecar',
      cpuMillicores: Math.round(20 + 180 * random()),
      memoryBytes: Math.round(32 * MIB + 224 * MIB * random()),
    });
  const vpa = workloadVpa(namespace, name, w, mode, sizes, nowMs);
  const pods = Array.from({ length: REPLICAS }, (_, p) =>
    workloadPod(namespace, name, w, p, sizes, nowMs),
  );
  return { vpa, pods };
}

function workloadVpa(
  namespace: string,
  name: string,
  w: number,
  mode: UpdateMode,
  sizes: readonly ContainerSize[],
  nowMs: number,
): VerticalPodAutoscaler {
  const recommendation = (size: ContainerSize) => ({
    containerName: size.name,
    target: resources(size, 1),
    lowerBound: resources(size, 0.7),
    upperBound: resources(size, 2),
    uncappedTarget: resources(size, 1),
  });
  const containerRecommendations: RecommendedContainerResources[] =
    sizes.map(recommendation);
  return {
    apiVersion: VPA_API_VERSION,
    kind: VPA_KIND,
    metadata: {
      namespace,
      name,
      uid: uid('vpa', w),
      // As listed from the API server: pod evaluations are kept per object version.
      resourceVersion: String(1000 + w),
      generation: 1,
      creationTimestamp: new Date(nowMs - 30 * 24 * HOUR_MS).toISOString(),
    },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      updatePolicy: { updateMode: mode },
      // A tenth boost their pods' CPU at start-up: the cycle looks for boosts to end.
      ...(w % 10 === 3
        ? {
            startupBoost: {
              cpu: {
                type: StartupBoostType.Factor,
                factor: 2,
                durationSeconds: 60,
              },
            },
          }
        : {}),
      // A quarter of the VPAs bound their recommendations, as teams often do.
      ...(w % 4 === 1
        ? {
            resourcePolicy: {
              containerPolicies: [
                {
                  containerName: '*',
                  minAllowed: { cpu: '10m', memory: '32Mi' },
                  maxAllowed: { cpu: '4', memory: '8Gi' },
                },
              ],
            },
          }
        : {}),
    },
    status: {
      recommendation: { containerRecommendations },
      conditions: [
        {
          type: 'RecommendationProvided',
          status: 'True',
          lastTransitionTime: new Date(nowMs - 24 * HOUR_MS).toISOString(),
        },
      ],
    },
  };
}

/**
 * A running pod as the pod cache holds it (the fields the updater reads and the usual
 * company: owner, node, conditions, container statuses with their applied resources).
 */
function workloadPod(
  namespace: string,
  app: string,
  w: number,
  p: number,
  sizes: readonly ContainerSize[],
  nowMs: number,
): UpdaterPod {
  const name = `${app}-${POD_TEMPLATE_HASH}-${p.toString(36).padStart(5, 'x')}`;
  const scale = p < STALE_PODS_PER_VPA ? 0.4 : 1;
  const started = new Date(nowMs - (48 + p) * HOUR_MS).toISOString();
  const containerResources = (size: ContainerSize) => {
    const requests = resources(size, scale);
    return {
      requests,
      limits:
        size.name === 'app'
          ? { memory: formatMemoryBytes(2 * roundedMemory(size, scale)) }
          : {},
    };
  };
  const condition = (type: string) => ({
    type,
    status: 'True',
    lastTransitionTime: started,
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace,
      name,
      uid: uid('pod', w * REPLICAS + p),
      generateName: `${app}-${POD_TEMPLATE_HASH}-`,
      creationTimestamp: started,
      labels: { app, 'pod-template-hash': POD_TEMPLATE_HASH },
      annotations: {
        [PodAnnotation.vpaObservedContainers]: sizes
          .map((size) => size.name)
          .join(', '),
        [PodAnnotation.vpaUpdates]: `Pod resources updated by ${app}: container 0: cpu request, memory request, memory limit`,
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${app}-${POD_TEMPLATE_HASH}`,
          uid: uid('rs', w),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      nodeName: `node-${(w * REPLICAS + p) % 200}`,
      containers: sizes.map((size) => ({
        name: size.name,
        image: `registry.example/${size.name}:1.0`,
        resources: containerResources(size),
      })),
    },
    status: {
      phase: 'Running',
      startTime: started,
      conditions: [
        'PodReadyToStartContainers',
        'Initialized',
        'Ready',
        'ContainersReady',
        'PodScheduled',
      ].map(condition),
      containerStatuses: sizes.map((size) => ({
        name: size.name,
        ready: true,
        restartCount: 0,
        started: true,
        image: `registry.example/${size.name}:1.0`,
        imageID: `registry.example/${size.name}@sha256:${'0'.repeat(64)}`,
        containerID: `containerd://${uid('c', w * REPLICAS + p)}`,
        state: { running: { startedAt: started } },
        resources: containerResources(size),
      })),
    },
  } as UpdaterPod;
}

/** A LimitRange with generous container bounds and defaults, as a platform team sets one. */
function namespaceLimitRange(namespace: string): LimitRange {
  return {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { namespace, name: 'defaults', resourceVersion: '1' },
    spec: {
      limits: [
        {
          type: 'Container',
          min: { cpu: '10m', memory: '16Mi' },
          max: { cpu: '8', memory: '32Gi' },
          default: { cpu: '500m', memory: '512Mi' },
          defaultRequest: { cpu: '100m', memory: '128Mi' },
        },
        { type: 'Pod', max: { cpu: '16', memory: '64Gi' } },
      ],
    },
  };
}

function resources(size: ContainerSize, scale: number): ResourceList {
  return {
    cpu: formatCpuMillicores(
      Math.max(1, Math.round(size.cpuMillicores * scale)),
    ),
    memory: formatMemoryBytes(roundedMemory(size, scale)),
  };
}

/** Memory as the recommender writes it: whole bytes. */
function roundedMemory(size: ContainerSize, scale: number): number {
  return Math.round(size.memoryBytes * scale);
}

function uid(kind: string, index: number): string {
  const hex = index.toString(16).padStart(12, '0');
  return `${kind.padEnd(8, '0').slice(0, 8)}-0000-4000-8000-${hex}`;
}

/** main.ts's wiring with the API server, tracer and logger replaced by inert ones. */
function inMemoryUpdaterContext(
  cluster: SyntheticUpdaterCluster,
): UpdaterCycleContext {
  const accepted = async () => ({ outcome: 'evicted' as const });
  return {
    // The flags' defaults (upstream's).
    intervalMs: 60_000,
    ignoredNamespaces: new Set(),
    // The caches' `list()` copies their values, as ListWatchCache does.
    listVpas: () => [...cluster.vpas],
    listPods: () => [...cluster.pods],
    resolveTarget: async (vpa) => ({
      selector: { matchLabels: { app: vpa.spec.targetRef.name } },
    }),
    // Every pod's ReplicaSet `<app>-<hash>` belongs to the Deployment `<app>`, from the cache.
    topMostController: async (_namespace, owner) => ({
      kind: 'Deployment',
      name: owner.name.slice(0, owner.name.lastIndexOf('-')),
    }),
    admissionControllerAlive: async () => true,
    // One replica, leader election off: always leading, as main.ts's `isLeading` then is.
    stillLeading: () => true,
    limitRanges: (namespace) => [...(cluster.limitRanges.get(namespace) ?? [])],
    configuredReplicas: async () => REPLICAS,
    // Every rail on: startup boosts ended, native sidecars updated, groups below
    // minReplicas resized in place where their VPA asks, the memory-shrink rail (below).
    settings: {
      featureGates: RAILS_GATES,
      thresholds: {
        podUpdateThreshold: UPDATER_DEFAULTS.podUpdateThreshold,
        podLifetimeThresholdMs: UPDATER_DEFAULTS.podLifetimeThresholdMs,
        evictAfterOomThresholdMs: UPDATER_DEFAULTS.evictAfterOomThresholdMs,
        featureGates: RAILS_GATES,
      },
      restriction: {
        minReplicas: UPDATER_DEFAULTS.minReplicas,
        evictionTolerance: UPDATER_DEFAULTS.evictionTolerance,
        allowSingleReplica: false,
        inPlaceSkipDisruptionBudget:
          UPDATER_DEFAULTS.inPlaceSkipDisruptionBudget,
        inPlaceBelowMinReplicas: true,
      },
      inPlaceForAuto: false,
    },
    // The API server accepts every eviction, resize and annotation at once.
    actions: {
      evict: accepted,
      resize: async () => ({ outcome: 'resized' }),
      annotate: async () => undefined,
    },
    recordEvent: async () => undefined,
    // --eviction-rate-limit's default, -1: no limit.
    evictionLimiter: new TokenBucket(-1, 1),
    inPlaceLimiter: new TokenBucket(-1, 1),
    infeasible: new InfeasibleResizes(),
    evaluations: new PodEvaluations(),
    dryRun: false,
    sleep: async () => undefined,
    // Counted in the cycle's summary, which must show none.
    recover: () => undefined,
    // Without a registered SDK the OpenTelemetry API hands out a no-op tracer.
    tracer: trace.getTracer('bench'),
    logger: createLogger({
      serviceName: 'bench',
      serviceVersion: '0',
      env: { LOG_LEVEL: 'silent' },
    }),
    metrics: updaterMetrics(createRegistry()),
    // The memory-shrink rail on, as always: the cycle's resizes raise memory limits, which
    // it checks without reading metrics.
    inPlaceMemoryLimitHeadroom: DEFAULT_IN_PLACE_MEMORY_LIMIT_HEADROOM,
    memoryWorkingSets: async () => new Map(),
  };
}
