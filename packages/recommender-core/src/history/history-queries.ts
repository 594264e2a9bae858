/** The flag values that shape the history queries (upstream names in the comments). */
export interface HistoryQuerySettings {
  /** `--prometheus-cadvisor-job-name`; empty: no job matcher. */
  readonly cadvisorJobName: string;
  /** `--history-cpu-metric`: a cumulative CPU-seconds counter. */
  readonly cpuMetric: string;
  /** `--history-memory-metric`: a gauge in bytes. */
  readonly memoryMetric: string;
  /** `--history-resolution`, as typed: it is both the step and the rate() window. */
  readonly historyResolution: string;
  /** `--metric-for-pod-labels`, run as given. */
  readonly podLabelsMetric: string;
  /** `--container-namespace-label`, `--container-pod-name-label`, `--container-name-label`. */
  readonly containerNamespaceLabel: string;
  readonly containerPodNameLabel: string;
  readonly containerNameLabel: string;
}

export interface HistoryQueries {
  /** Range query: CPU usage in cores per container. */
  readonly cpu: string;
  /** Range query: memory usage in bytes per container. */
  readonly memory: string;
  /** Instant query that must return a matrix: the pods' labels. */
  readonly podLabels: string;
}

/**
 * The label matchers of both usage queries, exactly as upstream builds them (§4.4): series
 * of a real container (a pod name, a container name, not the pause container "POD"),
 * optionally of one job and one namespace. Values are inserted verbatim, as upstream does.
 */
export function containerSelector(
  settings: HistoryQuerySettings,
  namespace: string | undefined,
): string {
  const job =
    settings.cadvisorJobName === ''
      ? ''
      : `job="${settings.cadvisorJobName}", `;
  const name = settings.containerNameLabel;
  const inNamespace =
    namespace === undefined
      ? ''
      : `, ${settings.containerNamespaceLabel}="${namespace}"`;
  return `${job}${settings.containerPodNameLabel}=~".+", ${name}!="POD", ${name}!=""${inNamespace}`;
}

/**
 * The three queries of a history load. The pod-labels metric is run unchanged (no range is
 * appended), so it needs its own range selector to return the matrix upstream expects.
 */
export function historyQueries(
  settings: HistoryQuerySettings,
  namespace: string | undefined,
): HistoryQueries {
  const selector = containerSelector(settings, namespace);
  return {
    cpu: `rate(${settings.cpuMetric}{${selector}}[${settings.historyResolution}])`,
    memory: `${settings.memoryMetric}{${selector}}`,
    podLabels: settings.podLabelsMetric,
  };
}
