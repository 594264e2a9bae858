import type { PodMetricsList } from '@kubernetes/client-node';
import { parseCpuMillicores, parseMemoryBytes } from '@tandem/vpa-api';
import type { GetJson } from './connection/kube-request.js';

/** One container's usage in one metrics snapshot, in the model's units. */
export interface PodContainerUsage {
  namespace: string;
  pod: string;
  container: string;
  timeMs: number;
  cpuMillicores: number;
  memoryBytes: number;
}

/**
 * Reads one snapshot of metrics.k8s.io PodMetrics (all namespaces or one). Quantities are
 * converted as upstream does: CPU `MilliValue()`, memory `Value()`, both rounded up; the
 * sample time is the snapshot's timestamp (the end of the metrics window). A container
 * whose quantities do not parse is skipped and counted, not fatal.
 */
export function podMetricsSource(
  get: GetJson,
  namespace: string | undefined,
): () => Promise<{ usages: PodContainerUsage[]; skipped: number }> {
  const path =
    namespace === undefined
      ? '/apis/metrics.k8s.io/v1beta1/pods'
      : `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods`;
  return async () => {
    const list = (await get(path)) as PodMetricsList;
    const usages: PodContainerUsage[] = [];
    let skipped = 0;
    // client-node's metrics types mark every field present; a metrics server may still
    // leave some out, so each read has a fallback.
    for (const item of list.items) {
      const timeMs = Date.parse(item.timestamp);
      for (const container of item.containers ?? []) {
        try {
          usages.push({
            namespace: item.metadata.namespace ?? '',
            pod: item.metadata.name ?? '',
            container: container.name,
            timeMs,
            cpuMillicores: parseCpuMillicores(container.usage.cpu ?? ''),
            memoryBytes: parseMemoryBytes(container.usage.memory ?? ''),
          });
        } catch {
          skipped += 1;
        }
      }
    }
    return { usages, skipped };
  };
}
