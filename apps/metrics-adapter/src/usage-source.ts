import type { ContainerUsage } from '@tandem/custom-metrics';
import { podMetricsSource, TtlCache, type GetJson } from '@tandem/kube';

/** Per pod name, the usage of each container, from one snapshot of one namespace. */
export type NamespaceUsage = ReadonlyMap<string, readonly ContainerUsage[]>;

/** Reads one namespace's usage now, from wherever usage comes from. */
export type UsageReader = (namespace: string) => Promise<NamespaceUsage>;

/** metrics.k8s.io PodMetrics of one namespace (metrics-server), as the HPA reads them. */
export function metricsServerUsage(get: GetJson): UsageReader {
  return async (namespace) => {
    const { usages } = await podMetricsSource(get, namespace)();
    const byPod = new Map<string, ContainerUsage[]>();
    for (const usage of usages) {
      const containers = byPod.get(usage.pod) ?? [];
      containers.push({
        name: usage.container,
        cpuCores: usage.cpuMillicores / 1000,
        memoryBytes: usage.memoryBytes,
      });
      byPod.set(usage.pod, containers);
    }
    return byPod;
  };
}

/**
 * One read per namespace per `ttlMs`, however many HPAs and metrics ask meanwhile:
 * concurrent requests share the read in flight, and a failed read is not kept (the next
 * request retries, so a source that comes back is used at once).
 */
export function cachedUsage(read: UsageReader, ttlMs: number): UsageReader {
  const cache = new TtlCache<NamespaceUsage>(ttlMs);
  const inFlight = new Map<string, Promise<NamespaceUsage>>();
  return (namespace) => {
    const cached = cache.get(namespace);
    if (cached !== undefined) return Promise.resolve(cached);
    let pending = inFlight.get(namespace);
    if (pending === undefined) {
      pending = read(namespace)
        .then((usage) => {
          cache.set(namespace, usage);
          return usage;
        })
        .finally(() => inFlight.delete(namespace));
      inFlight.set(namespace, pending);
    }
    return pending;
  };
}
