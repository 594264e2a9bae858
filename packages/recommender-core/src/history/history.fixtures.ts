import type { PrometheusSeries } from '@tandem/prometheus-api';
import type { HistoryLabelNames } from './cluster-history.js';

/** Shared builders for the history tests: upstream's default label names. */
export const LABEL_NAMES: HistoryLabelNames = {
  containerNamespaceLabel: 'namespace',
  containerPodNameLabel: 'pod_name',
  containerNameLabel: 'name',
  podNamespaceLabel: 'kubernetes_namespace',
  podNameLabel: 'kubernetes_pod_name',
  podLabelPrefix: 'pod_label_',
};

/** A cAdvisor-style usage series of one container. */
export function usageSeries(
  namespace: string,
  pod: string,
  container: string,
  points: [timeMs: number, value: number][],
): PrometheusSeries {
  return {
    labels: {
      job: 'kubernetes-cadvisor',
      namespace,
      pod_name: pod,
      name: container,
    },
    points: points.map(([timeMs, value]) => ({ timeMs, value })),
  };
}

/** An `up{job="kubernetes-pods"}`-style series carrying a pod's labels. */
export function podLabelsSeries(
  namespace: string,
  pod: string,
  labels: Record<string, string>,
  lastTimesMs: number[],
): PrometheusSeries {
  return {
    labels: {
      __name__: 'up',
      job: 'kubernetes-pods',
      kubernetes_namespace: namespace,
      kubernetes_pod_name: pod,
      ...Object.fromEntries(
        Object.entries(labels).map(([name, value]) => [
          `pod_label_${name}`,
          value,
        ]),
      ),
    },
    points: lastTimesMs.map((timeMs) => ({ timeMs, value: 1 })),
  };
}
