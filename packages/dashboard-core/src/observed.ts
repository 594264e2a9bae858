/**
 * What the dashboard reads of the cluster, reduced to what its pages show: the app fills
 * these from its caches, the pure core reads only these.
 */

/** A CPU and memory amount: millicores and bytes, as the metrics and the API count them. */
export interface Resources {
  readonly cpuMillicores?: number;
  readonly memoryBytes?: number;
}

export type PerContainer = Readonly<Record<string, Resources>>;

export interface TargetRef {
  readonly apiVersion?: string;
  readonly kind: string;
  readonly name: string;
}

export interface ObservedVpa {
  readonly namespace: string;
  readonly name: string;
  readonly targetRef: TargetRef;
  /** `spec.updatePolicy.updateMode`, `Recreate` when unset as upstream defaults it. */
  readonly mode: string;
  /** `tandem.dev/strategy`, when the VPA names one. */
  readonly strategy?: string;
  readonly target: PerContainer;
  readonly lowerBound: PerContainer;
  readonly upperBound: PerContainer;
}

/** The first metric of an HPA, as its spec targets it and its status last read it. */
export interface HpaMetric {
  readonly type: string;
  /** `cpu` for a Resource metric, the metric's name otherwise. */
  readonly name: string;
  /** A `ContainerResource` metric's container: only it is measured. */
  readonly container?: string;
  readonly targetType: 'Utilization' | 'AverageValue' | 'Value';
  readonly target: number;
  readonly current?: number;
}

export interface ObservedHpa {
  readonly namespace: string;
  readonly name: string;
  readonly targetRef: TargetRef;
  readonly minReplicas: number;
  readonly maxReplicas: number;
  readonly currentReplicas: number;
  readonly desiredReplicas: number;
  readonly metric?: HpaMetric;
}

export interface ObservedPod {
  readonly name: string;
  readonly pending: boolean;
  readonly ready: boolean;
  /** The requests each container runs with now. */
  readonly requests: PerContainer;
  /** What the user declared, from `tandem.dev/original-resources`; else `requests`. */
  readonly declared: PerContainer;
}

/** Per pod name, each container's usage from one metrics.k8s.io snapshot. */
export type UsageByPod = ReadonlyMap<string, PerContainer>;

/** An Event about one of a workload's objects, as its timeline lists it. */
export interface ObservedEvent {
  readonly timeMs: number;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  /** Who wrote it (`reportingComponent`, else `source.component`). */
  readonly component: string;
  readonly count: number;
  readonly object: { readonly kind: string; readonly name: string };
}
