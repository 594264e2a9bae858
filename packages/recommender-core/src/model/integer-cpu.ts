import {
  formatCpuMillicores,
  parseQuantity,
  type RecommendedContainerResources,
  type ResourceList,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';

/** Upstream's opt-in, per container: `vpa-post-processor.kubernetes.io/<container>_integerCPU: "true"`. */
const PREFIX = 'vpa-post-processor.kubernetes.io/';
const SUFFIX = '_integerCPU';

/** The containers a VPA's annotations opt into whole-core CPU recommendations. */
export function integerCpuContainers(vpa: VerticalPodAutoscaler): Set<string> {
  const containers = new Set<string>();
  for (const [key, value] of Object.entries(vpa.metadata?.annotations ?? {}))
    if (
      value === 'true' &&
      key.startsWith(PREFIX) &&
      key.endsWith(SUFFIX) &&
      key.length > PREFIX.length + SUFFIX.length
    )
      containers.add(key.slice(PREFIX.length, -SUFFIX.length));
  return containers;
}

/**
 * `--cpu-integer-post-processor-enabled` (upstream's IntegerCPUPostProcessor, for the
 * kubelet's static CPU manager policy): target, bounds and uncapped target of each opted-in
 * container round up to whole cores. It runs before capping, as upstream orders them, so a
 * policy's maxAllowed still wins.
 */
export function roundUpToWholeCores(
  recommendations: readonly RecommendedContainerResources[],
  containers: ReadonlySet<string>,
): RecommendedContainerResources[] {
  if (containers.size === 0) return [...recommendations];
  return recommendations.map((recommendation) =>
    containers.has(recommendation.containerName)
      ? {
          ...recommendation,
          target: wholeCores(recommendation.target),
          lowerBound: wholeCores(recommendation.lowerBound),
          upperBound: wholeCores(recommendation.upperBound),
          uncappedTarget: wholeCores(recommendation.uncappedTarget),
        }
      : recommendation,
  );
}

function wholeCores<T extends ResourceList | undefined>(resources: T): T {
  const cpu = resources?.['cpu'];
  if (resources === undefined || cpu === undefined) return resources;
  // Quantity.value() rounds up, as Kubernetes' RoundUp(Scale(0)) does.
  return {
    ...resources,
    cpu: formatCpuMillicores(parseQuantity(cpu).value() * 1000n),
  };
}
