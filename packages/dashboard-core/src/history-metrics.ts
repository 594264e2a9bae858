import type { PrometheusSeries } from '@tandem/prometheus-api';
import {
  RESOURCE_LINES,
  resourceKey,
  type Resource,
  type ResourceLine,
} from './history-values.js';
import type { HistoryPoint } from './plots.js';

/**
 * The metrics a dashboard exports of each workload's last sample, so that a Prometheus
 * scraping it keeps the history the pages draw for longer than the dashboard's memory.
 * Base units, as Prometheus names them: cores and bytes.
 */
export const HISTORY_METRICS = {
  replicas: 'tandem_dashboard_workload_replicas',
  cpu: 'tandem_dashboard_container_cpu_cores',
  memory: 'tandem_dashboard_container_memory_bytes',
} as const;

/** Which replicas a `replicas` sample counts: the HPA's, or a native HPA's from the same usage. */
const REPLICAS_LABEL = { replicas: 'running', native: 'native_equivalent' };

/** A workload as its exported series name it. */
export interface WorkloadLabels {
  readonly namespace: string;
  readonly kind: string;
  readonly workload: string;
}

export interface HistoryGauge {
  readonly metric: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const MILLICORES_A_CORE = 1000;

/** One sample's history values (`historyValues`) as the gauges that export them. */
export function historyGauges(
  workload: WorkloadLabels,
  values: Readonly<Record<string, number>>,
): HistoryGauge[] {
  const gauges: HistoryGauge[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (key === 'replicas' || key === 'native') {
      gauges.push({
        metric: HISTORY_METRICS.replicas,
        labels: { ...workload, replicas: REPLICAS_LABEL[key] },
        value,
      });
      continue;
    }
    const [container = '', resource, line = ''] = key.split('|');
    gauges.push({
      metric: resource === 'cpu' ? HISTORY_METRICS.cpu : HISTORY_METRICS.memory,
      labels: { ...workload, container, line },
      value: resource === 'cpu' ? value / MILLICORES_A_CORE : value,
    });
  }
  return gauges;
}

/**
 * PromQL selecting one workload's exported series. Label values are written as JSON
 * strings, which PromQL reads with the same escapes, so no name can end the string early.
 */
export function historySelector(workload: WorkloadLabels): string {
  const names = Object.values(HISTORY_METRICS).join('|');
  return `{__name__=~${JSON.stringify(names)},namespace=${JSON.stringify(workload.namespace)},kind=${JSON.stringify(workload.kind)},workload=${JSON.stringify(workload.workload)}}`;
}

const isLine = (line: string | undefined): line is ResourceLine =>
  (RESOURCE_LINES as readonly string[]).includes(line ?? '');

/** The history key of an exported series, undefined for a series the dashboard did not write. */
function keyOf(labels: Readonly<Record<string, string>>): string | undefined {
  const metric = labels['__name__'];
  if (metric === HISTORY_METRICS.replicas) {
    if (labels['replicas'] === REPLICAS_LABEL.replicas) return 'replicas';
    if (labels['replicas'] === REPLICAS_LABEL.native) return 'native';
    return undefined;
  }
  const resource: Resource | undefined =
    metric === HISTORY_METRICS.cpu
      ? 'cpu'
      : metric === HISTORY_METRICS.memory
        ? 'memory'
        : undefined;
  const { container, line } = labels;
  if (resource === undefined || !container || !isLine(line)) return undefined;
  return resourceKey(container, resource, line);
}

/**
 * A range query's series back into history points, oldest first: one point per time
 * stamp, with every value a series has there, in the units the history keeps.
 */
export function historyFromSeries(
  series: readonly PrometheusSeries[],
): HistoryPoint[] {
  const byTime = new Map<number, Record<string, number>>();
  for (const { labels, points } of series) {
    const key = keyOf(labels);
    if (key === undefined) continue;
    const scale =
      labels['__name__'] === HISTORY_METRICS.cpu ? MILLICORES_A_CORE : 1;
    for (const { timeMs, value } of points) {
      const values = byTime.get(timeMs) ?? {};
      values[key] = value * scale;
      byTime.set(timeMs, values);
    }
  }
  return [...byTime]
    .sort(([a], [b]) => a - b)
    .map(([timeMs, values]) => ({ timeMs, values }));
}

/**
 * A range longer than memory holds: Prometheus' points, at the step that keeps the page
 * small, then memory's samples newer than its last (what it has not scraped yet).
 */
export function joinHistory(
  fromPrometheus: readonly HistoryPoint[],
  inMemory: readonly HistoryPoint[],
): HistoryPoint[] {
  const scrapedUntil = fromPrometheus.at(-1)?.timeMs ?? -Infinity;
  return [
    ...fromPrometheus,
    ...inMemory.filter((point) => point.timeMs > scrapedUntil),
  ];
}
