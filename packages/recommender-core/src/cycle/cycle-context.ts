import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { Tracer } from '@opentelemetry/api';
import {
  DEFAULT_RECOMMENDER_CONFIG,
  type RecommendationFormat,
  type RecommenderConfig,
} from '@tandem/estimators';
import type { EventRecorder, PodContainerUsage } from '@tandem/kube';
import type { Logger } from '@tandem/telemetry';
import type { ResourceList, VerticalPodAutoscaler } from '@tandem/vpa-api';
import type { VpaStore } from '../checkpoints/vpa-store.js';
import {
  ClusterModel,
  type ClusterModelOptions,
  type ObservedOom,
  type VpaSelectionOptions,
  type VpaTarget,
} from '../model/index.js';
import type { RecommenderMetrics } from '../recommender-metrics.js';
import { EventRateLimit } from './event-rate-limit.js';
import type { QualityLinks } from './quality.js';

/** One OOMAtMaxAllowed event a VPA container this often: upstream's --evict-after-oom-threshold. */
export const OOM_AT_MAX_ALLOWED_EVENT_INTERVAL_MS = 10 * 60_000;

/** What the flags decide: fixed for the life of the process. */
export interface CycleSettings {
  selection: VpaSelectionOptions;
  /** Upstream's estimator flags: percentiles, margin, minimums, confidence intervals. */
  recommenderConfig: RecommenderConfig;
  /** Upstream's rounding and `--humanize-memory` flags. */
  recommendationFormat: RecommendationFormat;
  /** Caps for resources a VPA's policy leaves open (the global max-allowed flags). */
  globalMaxAllowed: ResourceList;
  /** `--cpu-integer-post-processor-enabled`: annotated containers get whole cores. */
  integerCpuPostProcessor: boolean;
  /** `--cap-oom-bump-up-at-max-allowed`: an OOM bump-up stops at the memory maxAllowed. */
  capOomBumpUpAtMaxAllowed: boolean;
  /** `--cap-recommendation-at-largest-node`: recommendations fit the largest node (`listNodes`). */
  capAtLargestNode: boolean;
  namespace: string | undefined;
  /** False with `--storage=prometheus`: history then comes from Prometheus, and checkpoints are neither read nor written. */
  checkpointsEnabled: boolean;
  checkpointsGcIntervalMs: number;
  /** `--checkpoints-timeout`: MaintainCheckpoints stops starting VPAs after this long. */
  checkpointsTimeoutMs: number;
  /** `--update-worker-count`: status and checkpoint writes in flight at once. */
  updateWorkers: number;
  /** The model's own options (memory saver, aggregation): a fresh state is built with them. */
  model: ClusterModelOptions;
  /**
   * `--quality-metrics`: observe the `vpa_quality_*` family (every usage sample and every
   * recommendation). Needs the metrics built with `recommenderMetrics(registry, { quality: true })`.
   */
  qualityMetrics?: boolean;
  /**
   * `--feature-gates=NativeSidecar=true`: native sidecars (init containers with
   * `restartPolicy: Always`) are modelled and recommended like containers (AEP-8905).
   */
  nativeSidecars?: boolean;
}

/** The flags' defaults (upstream's), with `overrides`: for tests and benchmarks. */
export function defaultCycleSettings(
  overrides: Partial<CycleSettings> = {},
): CycleSettings {
  return {
    selection: { recommenderName: 'default' },
    recommenderConfig: DEFAULT_RECOMMENDER_CONFIG,
    recommendationFormat: {},
    globalMaxAllowed: {},
    integerCpuPostProcessor: false,
    capOomBumpUpAtMaxAllowed: false,
    capAtLargestNode: false,
    qualityMetrics: false,
    namespace: undefined,
    checkpointsEnabled: true,
    checkpointsGcIntervalMs: 10 * 60_000,
    checkpointsTimeoutMs: 60_000,
    updateWorkers: 10,
    model: {},
    ...overrides,
  };
}

/** What the cycle reads from the cluster; main.ts wires caches and API clients here. */
export interface CycleInputs {
  listVpas: () => VerticalPodAutoscaler[];
  listPods: () => V1Pod[];
  /** Every VPA key of the cluster (any recommender): checkpoints of others are kept. */
  allVpaKeys: () => Set<string>;
  resolveTarget: (vpa: VerticalPodAutoscaler) => Promise<VpaTarget>;
  loadMetrics: () => Promise<{ usages: PodContainerUsage[]; skipped: number }>;
  takeOoms: () => ObservedOom[];
  /** The cluster's nodes, read only with `capAtLargestNode` (a list+watch cache). */
  listNodes?: () => V1Node[];
  /** Wall-clock milliseconds, for step deadlines. */
  clock: () => number;
  /**
   * Whether this replica still leads the term the state belongs to: checked before every
   * write, so a replica that loses the lease stops writing at once.
   */
  stillLeading: () => boolean;
}

export interface CycleObservability {
  tracer: Tracer;
  logger: Logger;
  metrics: RecommenderMetrics;
  /** Events on VPAs (a strategy fallback); without it the log line and count remain. */
  recordEvent?: EventRecorder;
}

/** What one leadership term accumulates: dropped when the lease is lost. */
export interface CycleState {
  model: ClusterModel;
  /** When garbage collection last ran (undefined: never, so the first cycle runs it). */
  lastGcMs: number | undefined;
  /** When orphaned checkpoints were last deleted; the first run is one interval after the term starts. */
  lastCheckpointGcMs: number;
  /** When each VPA's checkpoints were last all written: the oldest go first. */
  lastCheckpointWrittenMs: Map<string, number>;
  /** With quality metrics on: the aggregates under a VPA and their last recommendations. */
  qualityLinks: QualityLinks;
  /** When each VPA container's last OOMAtMaxAllowed event was written. */
  oomAtMaxAllowedEvents: EventRateLimit;
}

/** Everything one cycle reads from and writes to. */
export interface CycleContext {
  settings: CycleSettings;
  inputs: CycleInputs;
  store: VpaStore;
  observability: CycleObservability;
  state: CycleState;
}

/** An empty state for a new term: no history until it is loaded. */
export function freshCycleState(
  settings: Pick<CycleSettings, 'model'>,
  nowMs: number,
): CycleState {
  return {
    model: new ClusterModel(settings.model),
    lastGcMs: undefined,
    lastCheckpointGcMs: nowMs,
    lastCheckpointWrittenMs: new Map(),
    qualityLinks: new Map(),
    oomAtMaxAllowedEvents: new EventRateLimit(
      OOM_AT_MAX_ALLOWED_EVENT_INTERVAL_MS,
    ),
  };
}
