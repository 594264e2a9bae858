/**
 * `autoscaling.k8s.io/v1` VerticalPodAutoscaler and VerticalPodAutoscalerCheckpoint, plus the
 * few core/v1 shapes the VPA logic reads. Field names and JSON shapes follow upstream exactly,
 * so objects read from or written to the API server need no mapping.
 *
 * Enumerations are `const` objects paired with a string-literal union of the same name:
 * `UpdateMode.Recreate` is a value, `UpdateMode` the type.
 */

export const VPA_API_GROUP = 'autoscaling.k8s.io';
export const VPA_API_VERSION = 'autoscaling.k8s.io/v1';
/** The version alone, and the resources (plurals), for clients that take them apart. */
export const VPA_VERSION = 'v1';
export const VPA_PLURAL = 'verticalpodautoscalers';
export const VPA_CHECKPOINT_PLURAL = 'verticalpodautoscalercheckpoints';
export const VPA_KIND = 'VerticalPodAutoscaler';
export const VPA_CHECKPOINT_KIND = 'VerticalPodAutoscalerCheckpoint';

/**
 * Resource name → quantity text (`{"cpu": "250m", "memory": "256Mi"}`). CRD resource lists
 * are int-or-string, so the API server may also hand back plain JSON numbers for objects the
 * user wrote as `cpu: 1`; every function here that parses a quantity accepts both.
 */
export type ResourceList = Record<string, string>;

export const ResourceName = {
  cpu: 'cpu',
  memory: 'memory',
} as const;

/** Container policy name that applies to every container without a policy of its own. */
export const DEFAULT_CONTAINER_POLICY_NAME = '*';

export const UpdateMode = {
  Off: 'Off',
  Initial: 'Initial',
  Recreate: 'Recreate',
  /** Deprecated upstream (kubernetes/autoscaler#8424): behaves as Recreate; admission warns. */
  Auto: 'Auto',
  InPlaceOrRecreate: 'InPlaceOrRecreate',
  /** Alpha, behind the `InPlace` feature gate: resize in place, never evict. */
  InPlace: 'InPlace',
} as const;
export type UpdateMode = (typeof UpdateMode)[keyof typeof UpdateMode];

export const ContainerScalingMode = { Auto: 'Auto', Off: 'Off' } as const;
export type ContainerScalingMode =
  (typeof ContainerScalingMode)[keyof typeof ContainerScalingMode];

export const ControlledValues = {
  RequestsAndLimits: 'RequestsAndLimits',
  RequestsOnly: 'RequestsOnly',
} as const;
export type ControlledValues =
  (typeof ControlledValues)[keyof typeof ControlledValues];

export const EvictionChangeRequirement = {
  TargetHigherThanRequests: 'TargetHigherThanRequests',
  TargetLowerThanRequests: 'TargetLowerThanRequests',
} as const;
export type EvictionChangeRequirement =
  (typeof EvictionChangeRequirement)[keyof typeof EvictionChangeRequirement];

export const StartupBoostType = {
  Factor: 'Factor',
  Quantity: 'Quantity',
} as const;
export type StartupBoostType =
  (typeof StartupBoostType)[keyof typeof StartupBoostType];

export const ConditionType = {
  RecommendationProvided: 'RecommendationProvided',
  LowConfidence: 'LowConfidence',
  NoPodsMatched: 'NoPodsMatched',
  FetchingHistory: 'FetchingHistory',
  ConfigDeprecated: 'ConfigDeprecated',
  ConfigUnsupported: 'ConfigUnsupported',
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

export const ConditionStatus = {
  True: 'True',
  False: 'False',
  Unknown: 'Unknown',
} as const;
export type ConditionStatus =
  (typeof ConditionStatus)[keyof typeof ConditionStatus];

/** Feature gates shared by the admission controller and the updater (all alpha, off by default). */
export const FeatureGate = {
  InPlace: 'InPlace',
  CPUStartupBoost: 'CPUStartupBoost',
  PerVPAConfig: 'PerVPAConfig',
  /** Native sidecars recommended, admitted and updated like containers (AEP-8905). */
  NativeSidecar: 'NativeSidecar',
} as const;
export type FeatureGate = (typeof FeatureGate)[keyof typeof FeatureGate];
export type FeatureGates = Partial<Record<FeatureGate, boolean>>;

/** Pod annotations: the upstream-compatible ones and Tandem's own. */
export const PodAnnotation = {
  /** `Pod resources updated by <vpa>: container 0: cpu request, …` (admission controller). */
  vpaUpdates: 'vpaUpdates',
  /** Names of the pod's containers joined with ", " (admission controller). */
  vpaObservedContainers: 'vpaObservedContainers',
  /** `"true"` once the updater resized the pod in place. */
  vpaInPlaceUpdated: 'vpaInPlaceUpdated',
  /** Prefix; the container name follows. Holds the pre-boost resources as JSON. */
  vpaCpuStartupBoostPrefix: 'vpaCpuStartupBoost/',
  /** Tandem: the containers' requests and limits as submitted, before any mutation. */
  originalResources: 'tandem.dev/original-resources',
} as const;

// ---------------------------------------------------------------------------------------------
// Minimal object metadata and core/v1 shapes (structural, so this package stays dependency-free)

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface ResourceRequirements {
  requests?: ResourceList;
  limits?: ResourceList;
}

export interface Container {
  name: string;
  resources?: ResourceRequirements;
  /** Init containers only: `Always` makes a native sidecar (Kubernetes 1.29+ SidecarContainers). */
  restartPolicy?: string;
}

export interface ContainerStatus {
  name: string;
  /** The resources actually applied; reported once in-place resize is available. */
  resources?: ResourceRequirements | null;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: {
    containers: Container[];
    initContainers?: Container[];
    /** Pod-level requests and limits (`PodLevelResources`, beta and on since Kubernetes 1.34). */
    resources?: ResourceRequirements;
  };
  status?: {
    phase?: string;
    startTime?: string;
    containerStatuses?: ContainerStatus[];
    /** Native sidecars' resources after an in-place resize are reported here. */
    initContainerStatuses?: ContainerStatus[];
  };
}

export const LimitType = {
  Container: 'Container',
  Pod: 'Pod',
  PersistentVolumeClaim: 'PersistentVolumeClaim',
} as const;
export type LimitType = (typeof LimitType)[keyof typeof LimitType];

export interface LimitRangeItem {
  type: LimitType;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

export interface LimitRange {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: { limits: LimitRangeItem[] };
}

// ---------------------------------------------------------------------------------------------
// VerticalPodAutoscaler

export interface CrossVersionObjectReference {
  apiVersion?: string;
  kind: string;
  name: string;
}

export interface EvictionRequirement {
  resources: string[];
  changeRequirement: EvictionChangeRequirement;
}

export interface PodUpdatePolicy {
  /** Defaults to Recreate (the admission controller writes it when `updatePolicy` is absent). */
  updateMode?: UpdateMode;
  /** int32 > 0; overrides the updater's `--min-replicas`. */
  minReplicas?: number;
  evictionRequirements?: EvictionRequirement[];
  /** int32 ≥ 1; feature gate PerVPAConfig. */
  evictAfterOOMSeconds?: number;
}

export interface GenericStartupBoost {
  type: StartupBoostType;
  /** int32 ≥ 1, required for type Factor. */
  factor?: number;
  /** Whole millicores, required for type Quantity. */
  quantity?: string;
  /** int32; 0 (default) un-boosts as soon as the pod is Ready. */
  durationSeconds?: number;
}

export interface StartupBoost {
  cpu?: GenericStartupBoost;
}

export interface ContainerResourcePolicy {
  /** A container name, or `*` for every container without its own policy. */
  containerName: string;
  mode?: ContainerScalingMode;
  minAllowed?: ResourceList;
  maxAllowed?: ResourceList;
  /** Defaults to `["cpu", "memory"]`. */
  controlledResources?: string[];
  /** Defaults to RequestsAndLimits. */
  controlledValues?: ControlledValues;
  /** Quantity ≥ 1; feature gate PerVPAConfig. */
  oomBumpUpRatio?: string;
  /** Quantity ≥ 0 (bytes); feature gate PerVPAConfig. */
  oomMinBumpUp?: string;
  /** int32 ≥ 1; feature gate PerVPAConfig. */
  memoryAggregationIntervalSeconds?: number;
  /** int64 ≥ 1; feature gate PerVPAConfig. */
  memoryAggregationIntervalCount?: number;
  /** Overrides `spec.startupBoost` for this container; feature gate CPUStartupBoost. */
  startupBoost?: StartupBoost;
}

export interface PodResourcePolicy {
  containerPolicies?: ContainerResourcePolicy[];
}

export interface RecommenderSelector {
  name: string;
}

export interface VerticalPodAutoscalerSpec {
  targetRef: CrossVersionObjectReference;
  updatePolicy?: PodUpdatePolicy;
  resourcePolicy?: PodResourcePolicy;
  /** Empty or exactly one; empty means the `default` recommender. */
  recommenders?: RecommenderSelector[];
  startupBoost?: StartupBoost;
}

export interface RecommendedContainerResources {
  containerName: string;
  target: ResourceList;
  lowerBound?: ResourceList;
  upperBound?: ResourceList;
  /** The target before any capping; never changed by post-processing. */
  uncappedTarget?: ResourceList;
}

export interface RecommendedPodResources {
  containerRecommendations?: RecommendedContainerResources[];
}

export interface VerticalPodAutoscalerCondition {
  type: ConditionType;
  status: ConditionStatus;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

export interface VerticalPodAutoscalerStatus {
  recommendation?: RecommendedPodResources;
  conditions?: VerticalPodAutoscalerCondition[];
  observedGeneration?: number;
}

export interface VerticalPodAutoscaler {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: VerticalPodAutoscalerSpec;
  status?: VerticalPodAutoscalerStatus;
}

// ---------------------------------------------------------------------------------------------
// VerticalPodAutoscalerCheckpoint (named `<vpaName>-<containerName>`, no status subresource)

/**
 * A histogram as stored in a checkpoint. Every `HistogramCheckpoint` of `@tandem/histogram`
 * fits this type; the fields are optional here because upstream omits empty ones
 * (`omitempty`), so a checkpoint of an empty histogram may carry only `referenceTimestamp`.
 */
export interface CheckpointHistogram {
  /** RFC 3339, second precision; `null` when unset. */
  referenceTimestamp?: string | null;
  /** Bucket index (as a decimal string key) → weight scaled to at most 10000. */
  bucketWeights?: Record<string, number>;
  totalWeight?: number;
}

export interface VerticalPodAutoscalerCheckpointSpec {
  vpaObjectName?: string;
  containerName?: string;
}

export interface VerticalPodAutoscalerCheckpointStatus {
  lastUpdateTime?: string | null;
  /** `v3` for the current histogram layout. */
  version?: string;
  cpuHistogram?: CheckpointHistogram;
  memoryHistogram?: CheckpointHistogram;
  firstSampleStart?: string | null;
  lastSampleStart?: string | null;
  totalSamplesCount?: number;
}

export interface VerticalPodAutoscalerCheckpoint {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: VerticalPodAutoscalerCheckpointSpec;
  status?: VerticalPodAutoscalerCheckpointStatus;
}
