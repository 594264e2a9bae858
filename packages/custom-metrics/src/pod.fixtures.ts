import type {
  ContainerResources,
  ContainerUsage,
  PodForMetrics,
} from './pod-for-metrics.js';

export const ORIGINAL_RESOURCES = 'tandem.dev/original-resources';

/** A ready pod with the given containers and nothing else. */
export function pod(
  containers: ContainerResources[],
  more: Partial<PodForMetrics> = {},
): PodForMetrics {
  return {
    name: 'web-1',
    namespace: 'shop',
    labels: { app: 'web' },
    annotations: {},
    ready: true,
    containers,
    initContainers: [],
    ...more,
  };
}

export function container(
  name: string,
  requests: Record<string, string> = {},
  limits: Record<string, string> = {},
): ContainerResources {
  return { name, requests, limits };
}

/** Usage of one container: CPU in millicores (as written in the reference), memory in bytes. */
export function used(
  name: string,
  millicores: number,
  memoryBytes = 0,
): ContainerUsage {
  return { name, cpuCores: millicores / 1000, memoryBytes };
}

/** The annotation the webhook writes, for the given containers. */
export function annotationFor(
  containers: readonly ContainerResources[],
): Record<string, string> {
  return {
    [ORIGINAL_RESOURCES]: JSON.stringify(
      Object.fromEntries(
        containers.map((c) => [
          c.name,
          { requests: c.requests, limits: c.limits },
        ]),
      ),
    ),
  };
}
