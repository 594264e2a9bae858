/**
 * What the utilization maths read about a pod and its usage. The adapter app builds these
 * from the cluster; everything here is plain data so the maths stay pure.
 */

/** A container's resources: resource name → quantity text (`{"cpu": "500m"}`). */
export interface ContainerResources {
  name: string;
  requests: Record<string, string>;
  limits: Record<string, string>;
}

export interface PodForMetrics {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  /** Holds `tandem.dev/original-resources` when the Tandem webhook admitted the pod. */
  annotations: Record<string, string>;
  /** Running with condition Ready=True, and not being deleted. */
  ready: boolean;
  /** The CURRENT spec values, which the VPA may have rewritten. */
  containers: ContainerResources[];
  /** `restartPolicy: Always` makes one a native sidecar, running beside the containers. */
  initContainers: (ContainerResources & { restartPolicy?: string })[];
  /** The owning controller's pod template containers (e.g. from the ReplicaSet), when known. */
  templateContainers?: ContainerResources[];
}

/** One container's usage from metrics.k8s.io, already parsed. */
export interface ContainerUsage {
  name: string;
  cpuCores: number;
  memoryBytes: number;
}

/**
 * Where the declared ("original") requests and limits came from, most trusted first:
 * - `annotation`: `tandem.dev/original-resources`, written by the webhook at admission,
 *   before any mutation;
 * - `template`: the owning controller's pod template, which the VPA never changes (but a
 *   StatefulSet or DaemonSet template may be a newer revision than the pod);
 * - `current`: the pod's own spec, possibly rewritten by the VPA — the native HPA's
 *   denominator, with its drift.
 */
export type OriginalsSource = 'annotation' | 'template' | 'current';

export interface PodMetricResult {
  /** Value for the pod, or absent with a reason (no limit, no request, container not found, no usage...). */
  value?: number;
  reason?: string;
  /**
   * The least trusted source any measured container's declared values came from: a
   * container missing from the annotation (a sidecar injected after Tandem's webhook ran)
   * falls back to the template, then to the current spec, and the pod reports that.
   */
  originals: OriginalsSource;
  /** Set when the annotation was present but malformed (the app logs and counts it); the template/current fallback was used. */
  malformedAnnotation?: string;
}
