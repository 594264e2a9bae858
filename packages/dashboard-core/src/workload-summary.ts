import {
  isMetricName,
  metricMeaning,
  type MeasuredResource,
} from '@tandem/custom-metrics';
import { nativeReplicas, type HpaPod } from './native-replicas.js';
import type {
  HpaMetric,
  ObservedHpa,
  ObservedPod,
  ObservedVpa,
  PerContainer,
  Resources,
  UsageByPod,
} from './observed.js';

/** One workload under a VPA, an HPA or both: a row of the fleet and `/api/workloads`. */
export interface WorkloadSummary {
  readonly namespace: string;
  readonly kind: string;
  readonly name: string;
  readonly vpa: {
    readonly name: string;
    readonly mode: string;
    readonly strategy: string | null;
    readonly target: PerContainer;
    readonly lowerBound: PerContainer;
    readonly upperBound: PerContainer;
  } | null;
  readonly hpa: {
    readonly name: string;
    readonly currentReplicas: number;
    readonly desiredReplicas: number;
    readonly minReplicas: number;
    readonly maxReplicas: number;
    readonly metric: HpaMetric | null;
  } | null;
  /** What a native `Resource` HPA with the HPA's target would run now; null: see the reason. */
  readonly nativeEquivalentReplicas: number | null;
  readonly nativeEquivalentReason: string | null;
  /** Pods matched by the workload's selector. */
  readonly pods: number;
  /** What the user declared per container (a pod's `tandem.dev/original-resources`). */
  readonly declared: PerContainer;
  /** The requests the pods run with now (the largest over the pods, per value). */
  readonly current: PerContainer;
  /** The pods' mean usage per container, from the last metrics snapshot. */
  readonly usage: PerContainer;
}

export interface WorkloadInputs {
  readonly namespace: string;
  readonly kind: string;
  readonly name: string;
  readonly vpa?: ObservedVpa;
  readonly hpa?: ObservedHpa;
  readonly pods: readonly ObservedPod[];
  readonly usage: UsageByPod;
}

/** The summary of one workload; never throws. */
export function summarizeWorkload(inputs: WorkloadInputs): WorkloadSummary {
  const { vpa, hpa, pods, usage } = inputs;
  const native =
    hpa === undefined ? undefined : nativeEquivalent(hpa, pods, usage);
  return {
    namespace: inputs.namespace,
    kind: inputs.kind,
    name: inputs.name,
    vpa:
      vpa === undefined
        ? null
        : {
            name: vpa.name,
            mode: vpa.mode,
            strategy: vpa.strategy ?? null,
            target: vpa.target,
            lowerBound: vpa.lowerBound,
            upperBound: vpa.upperBound,
          },
    hpa:
      hpa === undefined
        ? null
        : {
            name: hpa.name,
            currentReplicas: hpa.currentReplicas,
            desiredReplicas: hpa.desiredReplicas,
            minReplicas: hpa.minReplicas,
            maxReplicas: hpa.maxReplicas,
            metric: hpa.metric ?? null,
          },
    nativeEquivalentReplicas:
      native !== undefined && 'replicas' in native ? native.replicas : null,
    nativeEquivalentReason:
      native === undefined
        ? 'no HPA scales this workload'
        : 'unknown' in native
          ? native.unknown
          : null,
    pods: pods.length,
    declared: largest(pods.map((pod) => pod.declared)),
    current: largest(pods.map((pod) => pod.requests)),
    usage: meanUsage(pods, usage),
  };
}

/**
 * The resource and percent target a native `Resource` HPA would have in place of this
 * HPA's metric: its own for a `Resource`/`ContainerResource` utilization, the percent of
 * Tandem's utilization metrics (`cpu_utilization_of_original_request`, …).
 */
export function nativeTarget(
  metric: HpaMetric | undefined,
): { resource: MeasuredResource; targetUtilization: number } | undefined {
  if (metric === undefined) return undefined;
  if (metric.type === 'Resource' || metric.type === 'ContainerResource') {
    if (metric.targetType !== 'Utilization') return undefined;
    if (metric.name !== 'cpu' && metric.name !== 'memory') return undefined;
    return { resource: metric.name, targetUtilization: metric.target };
  }
  if (!isMetricName(metric.name)) return undefined;
  const meaning = metricMeaning(metric.name);
  if (meaning.base === 'none') return undefined;
  return { resource: meaning.resource, targetUtilization: metric.target };
}

function nativeEquivalent(
  hpa: ObservedHpa,
  pods: readonly ObservedPod[],
  usage: UsageByPod,
) {
  const target = nativeTarget(hpa.metric);
  if (target === undefined)
    return {
      unknown:
        `a native HPA has no equivalent of ${hpa.metric?.type ?? 'no'} metric ${hpa.metric?.name ?? ''}`.trimEnd(),
    };
  const field = target.resource === 'cpu' ? 'cpuMillicores' : 'memoryBytes';
  const only = hpa.metric?.container;
  const hpaPods: HpaPod[] = pods.map((pod) => {
    const used = usage.get(pod.name);
    return {
      pending: pod.pending,
      ready: pod.ready,
      request: sum(pod.requests, field, only),
      usage: used === undefined ? undefined : sum(used, field, only),
    };
  });
  return nativeReplicas({
    ...target,
    currentReplicas: hpa.currentReplicas,
    minReplicas: hpa.minReplicas,
    maxReplicas: hpa.maxReplicas,
    pods: hpaPods,
  });
}

/** The pod's total of `field`, or one container's (a `ContainerResource` metric's). */
function sum(
  containers: PerContainer,
  field: keyof Resources,
  only: string | undefined,
): number {
  let total = 0;
  for (const [name, resources] of Object.entries(containers))
    if (only === undefined || name === only) total += resources[field] ?? 0;
  return total;
}

/** Per container and value, the largest over `lists`: a rollout in progress shows its new size. */
function largest(lists: readonly PerContainer[]): PerContainer {
  const result: Record<
    string,
    { cpuMillicores?: number; memoryBytes?: number }
  > = {};
  for (const list of lists)
    for (const [container, resources] of Object.entries(list)) {
      const kept = (result[container] ??= {});
      for (const field of ['cpuMillicores', 'memoryBytes'] as const) {
        const value = resources[field];
        if (value !== undefined)
          kept[field] = Math.max(kept[field] ?? 0, value);
      }
    }
  return result;
}

function meanUsage(
  pods: readonly ObservedPod[],
  usage: UsageByPod,
): PerContainer {
  const sums: Record<string, { cpu: number; memory: number; count: number }> =
    {};
  for (const pod of pods)
    for (const [container, used] of Object.entries(usage.get(pod.name) ?? {})) {
      const entry = (sums[container] ??= { cpu: 0, memory: 0, count: 0 });
      entry.cpu += used.cpuMillicores ?? 0;
      entry.memory += used.memoryBytes ?? 0;
      entry.count += 1;
    }
  return Object.fromEntries(
    Object.entries(sums).map(([container, { cpu, memory, count }]) => [
      container,
      { cpuMillicores: cpu / count, memoryBytes: memory / count },
    ]),
  );
}
