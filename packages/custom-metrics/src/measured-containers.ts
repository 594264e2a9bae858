import type {
  ContainerResources,
  ContainerUsage,
  PodForMetrics,
} from './pod-for-metrics.js';

/** A container whose usage goes into the pod's value, with that usage. */
export interface MeasuredContainer {
  container: ContainerResources;
  usage: ContainerUsage;
}

/** Kubernetes' marker of a native sidecar: an init container that keeps running. */
const SIDECAR_RESTART_POLICY = 'Always';

/**
 * The containers a pod's value sums, each with its usage, or why there is no value.
 *
 * Without `containerName`: every regular container, and native sidecars that have usage
 * (they run beside the app and use the pod's resources, like the HPA's own pod sums).
 * Plain init containers never count: they have finished before the pod is Ready. A
 * regular container without usage leaves the pod without a value, as the HPA's
 * Resource metrics do: a partial sum would read low and could scale the workload down.
 *
 * With `containerName`: that regular container or native sidecar, which must have usage.
 */
export function measuredContainers(
  pod: PodForMetrics,
  usage: readonly ContainerUsage[],
  containerName: string | undefined,
): MeasuredContainer[] | { reason: string } {
  const usageByName = new Map<string, ContainerUsage>();
  for (const entry of usage) {
    if (!usageByName.has(entry.name)) usageByName.set(entry.name, entry);
  }
  const sidecars = pod.initContainers.filter(
    (init) => init.restartPolicy === SIDECAR_RESTART_POLICY,
  );

  if (containerName !== undefined) {
    const container =
      pod.containers.find((c) => c.name === containerName) ??
      sidecars.find((c) => c.name === containerName);
    if (container === undefined) {
      const isInit = pod.initContainers.some((c) => c.name === containerName);
      return {
        reason: isInit
          ? `container ${containerName} is an init container, not running beside the pod's containers`
          : `pod has no container ${containerName}`,
      };
    }
    const found = usageByName.get(containerName);
    if (found === undefined) {
      return { reason: `no metrics for container ${containerName}` };
    }
    return [{ container, usage: found }];
  }

  if (pod.containers.length === 0) return { reason: 'pod has no containers' };
  const measured: MeasuredContainer[] = [];
  for (const container of pod.containers) {
    const found = usageByName.get(container.name);
    if (found === undefined) {
      return { reason: `no metrics for container ${container.name}` };
    }
    measured.push({ container, usage: found });
  }
  for (const container of sidecars) {
    const found = usageByName.get(container.name);
    if (found !== undefined) measured.push({ container, usage: found });
  }
  return measured;
}
