/**
 * The replicas a native `Resource` HPA with a `Utilization` target would choose, from the
 * same pods, usage and current requests: kube-controller-manager's
 * `pkg/controller/podautoscaler/replica_calculator.go` (`GetResourceReplicas`,
 * `groupPods`, `GetResourceUtilizationRatio` in `metrics/utilization.go`), then the clamp to
 * `[minReplicas, maxReplicas]`. The HPA's `behavior` (stabilization windows, rate policies)
 * is left out: this is the proposal of one sync, which a native HPA reaches once its
 * windows have passed.
 */

/** `--horizontal-pod-autoscaler-tolerance`'s default. */
export const HPA_TOLERANCE = 0.1;

export interface HpaPod {
  /** Pending pods count as unready, whatever their metrics. */
  readonly pending: boolean;
  /**
   * The Ready condition. For CPU the HPA also looks at start time and readiness transitions
   * (`--horizontal-pod-autoscaler-cpu-initialization-period`); the condition alone is what
   * holds once a pod has run past that period.
   */
  readonly ready: boolean;
  /** The sum of the pod's containers' requests of the resource (millicores or bytes). */
  readonly request: number;
  /** The sum of their usage, in the same unit; undefined when the metrics API has none. */
  readonly usage: number | undefined;
}

export interface NativeReplicasInput {
  /** The scale's replicas as the HPA reads them (its `status.currentReplicas`). */
  readonly currentReplicas: number;
  /** `averageUtilization`, percent of the request. */
  readonly targetUtilization: number;
  /** The resource whose readiness rules apply: CPU counts unready pods apart. */
  readonly resource: 'cpu' | 'memory';
  readonly pods: readonly HpaPod[];
  readonly minReplicas: number;
  readonly maxReplicas: number;
  readonly tolerance?: number;
}

export type NativeReplicas =
  | { readonly replicas: number; readonly utilization: number }
  | { readonly unknown: string };

/** What a native HPA would scale to now; never throws. */
export function nativeReplicas(input: NativeReplicasInput): NativeReplicas {
  const tolerance = input.tolerance ?? HPA_TOLERANCE;
  const { currentReplicas, targetUtilization } = input;
  if (!(targetUtilization > 0))
    return { unknown: 'the HPA has no utilization target' };
  if (currentReplicas === 0)
    return { unknown: 'the workload is scaled to zero' };
  let readyCount = 0;
  const measured: { request: number; usage: number }[] = [];
  const unready: HpaPod[] = [];
  const missing: HpaPod[] = [];
  for (const pod of input.pods) {
    if (pod.pending) unready.push(pod);
    else if (pod.usage === undefined) missing.push(pod);
    else if (input.resource === 'cpu' && !pod.ready) unready.push(pod);
    else {
      readyCount += 1;
      measured.push({ request: pod.request, usage: pod.usage });
    }
  }
  if (measured.length === 0)
    return {
      unknown: 'no metrics for the targeted pods (they may be unready)',
    };
  const utilization = utilizationOf(measured);
  if (utilization === undefined)
    return { unknown: 'the pods declare no request for the resource' };
  const ratio = utilization / targetUtilization;
  const clamp = (replicas: number) => ({
    replicas: Math.min(
      Math.max(replicas, input.minReplicas),
      input.maxReplicas,
    ),
    utilization,
  });
  const scaleUpWithUnready = unready.length > 0 && ratio > 1;
  if (!scaleUpWithUnready && missing.length === 0)
    return clamp(
      Math.abs(1 - ratio) <= tolerance
        ? currentReplicas
        : Math.ceil(ratio * readyCount),
    );
  // Missing pods use their whole request (or the target, when above 100 %) on the way
  // down and nothing on the way up; unready ones nothing, on the way up only.
  const filled = [...measured];
  const fallback = Math.max(100, targetUtilization) / 100;
  if (ratio < 1)
    for (const pod of missing)
      filled.push({ request: pod.request, usage: pod.request * fallback });
  else if (ratio > 1)
    for (const pod of missing) filled.push({ request: pod.request, usage: 0 });
  if (scaleUpWithUnready)
    for (const pod of unready) filled.push({ request: pod.request, usage: 0 });
  const newUtilization = utilizationOf(filled) ?? utilization;
  const newRatio = newUtilization / targetUtilization;
  if (
    Math.abs(1 - newRatio) <= tolerance ||
    (ratio < 1 && newRatio > 1) ||
    (ratio > 1 && newRatio < 1)
  )
    return clamp(currentReplicas);
  const proposed = Math.ceil(newRatio * filled.length);
  if (
    (newRatio < 1 && proposed > currentReplicas) ||
    (newRatio > 1 && proposed < currentReplicas)
  )
    return clamp(currentReplicas);
  return clamp(proposed);
}

/** Whole percent of the request, truncated as the HPA's `int32(usage * 100 / request)`. */
function utilizationOf(
  pods: readonly { request: number; usage: number }[],
): number | undefined {
  let usage = 0;
  let request = 0;
  for (const pod of pods) {
    usage += pod.usage;
    request += pod.request;
  }
  return request > 0 ? Math.trunc((usage * 100) / request) : undefined;
}
