import type { ContainerUsageSample } from '@tandem/estimators';
import {
  PrometheusResponseError,
  type PrometheusSeries,
} from '@tandem/prometheus-api';
import { objectKey } from '../model/index.js';

/** Which labels identify containers and pods in the series, and which carry pod labels. */
export interface HistoryLabelNames {
  /** `--container-namespace-label`, `--container-pod-name-label`, `--container-name-label`. */
  readonly containerNamespaceLabel: string;
  readonly containerPodNameLabel: string;
  readonly containerNameLabel: string;
  /** `--pod-namespace-label`, `--pod-name-label` (on the pod-labels series). */
  readonly podNamespaceLabel: string;
  readonly podNameLabel: string;
  /** `--pod-label-prefix`: series labels with it are pod labels, prefix stripped. */
  readonly podLabelPrefix: string;
}

/** What Prometheus remembers of one pod. */
export interface PodHistory {
  readonly namespace: string;
  readonly name: string;
  /** The labels of the latest pod-labels series (empty if there was none). */
  labels: Record<string, string>;
  /** The last point of that series (-Infinity: none yet). */
  lastSeenMs: number;
  /** Container name → its CPU and memory samples, in time order. */
  readonly containers: Map<string, ContainerUsageSample[]>;
}

/** Pods by `namespace/name`, in the order they first appeared in the answers. */
export type ClusterHistory = Map<string, PodHistory>;

/** The three query answers of one history load. */
export interface HistoryAnswers {
  /** CPU usage in cores. */
  readonly cpu: readonly PrometheusSeries[];
  /** Memory usage in bytes. */
  readonly memory: readonly PrometheusSeries[];
  readonly podLabels: readonly PrometheusSeries[];
}

function requiredLabel(series: PrometheusSeries, name: string): string {
  const value = series.labels[name];
  if (value === undefined)
    throw new PrometheusResponseError(
      `series ${JSON.stringify(series.labels)} has no label ${name}`,
    );
  return value;
}

function podHistory(
  history: ClusterHistory,
  namespace: string,
  name: string,
): PodHistory {
  const key = objectKey(namespace, name);
  let pod = history.get(key);
  if (pod === undefined) {
    pod = {
      namespace,
      name,
      labels: {},
      lastSeenMs: Number.NEGATIVE_INFINITY,
      containers: new Map(),
    };
    history.set(key, pod);
  }
  return pod;
}

/**
 * Upstream's ResourceAmount conversions: cores to whole millicores and bytes to whole
 * bytes, both truncated toward zero (Go's float-to-int conversion).
 */
function usageAmount(resource: 'cpu' | 'memory', value: number): number {
  return Math.trunc(resource === 'cpu' ? value * 1000 : value);
}

function addUsageSeries(
  history: ClusterHistory,
  seriesList: readonly PrometheusSeries[],
  resource: 'cpu' | 'memory',
  names: HistoryLabelNames,
): void {
  for (const series of seriesList) {
    const pod = podHistory(
      history,
      requiredLabel(series, names.containerNamespaceLabel),
      requiredLabel(series, names.containerPodNameLabel),
    );
    const container = requiredLabel(series, names.containerNameLabel);
    const samples = pod.containers.get(container) ?? [];
    pod.containers.set(container, samples);
    for (const { timeMs, value } of series.points) {
      // A NaN or infinite rate (e.g. a counter reset Prometheus could not resolve) is no usage.
      if (Number.isFinite(value))
        samples.push({ timeMs, resource, usage: usageAmount(resource, value) });
    }
  }
}

function podLabels(
  series: PrometheusSeries,
  prefix: string,
): Record<string, string> {
  const labels: Record<string, string> = {};
  if (prefix === '') return labels; // upstream: nothing has the empty prefix "stripped"
  for (const [name, value] of Object.entries(series.labels)) {
    if (name.startsWith(prefix)) labels[name.slice(prefix.length)] = value;
  }
  return labels;
}

/**
 * Groups the answers by pod and container (upstream's GetClusterHistory): samples of a
 * container sorted by time (CPU and memory interleaved, stable for equal times), and each
 * pod's labels from the pod-labels series with the latest last point. A pod may come from
 * the labels query alone; it then has labels and no containers.
 */
export function clusterHistory(
  answers: HistoryAnswers,
  names: HistoryLabelNames,
): ClusterHistory {
  const history: ClusterHistory = new Map();
  addUsageSeries(history, answers.cpu, 'cpu', names);
  addUsageSeries(history, answers.memory, 'memory', names);
  for (const pod of history.values())
    for (const samples of pod.containers.values())
      samples.sort((a, b) => a.timeMs - b.timeMs);
  for (const series of answers.podLabels) {
    const last = series.points.at(-1);
    if (last === undefined) continue;
    const pod = podHistory(
      history,
      requiredLabel(series, names.podNamespaceLabel),
      requiredLabel(series, names.podNameLabel),
    );
    if (last.timeMs > pod.lastSeenMs) {
      pod.lastSeenMs = last.timeMs;
      pod.labels = podLabels(series, names.podLabelPrefix);
    }
  }
  return history;
}
