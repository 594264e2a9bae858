/** The metrics Tandem serves as `pods/<metric>` (DESIGN.md, "Contracts between the apps"). */
export const METRIC_NAMES = [
  'cpu_utilization_of_limit',
  'memory_utilization_of_limit',
  'cpu_utilization_of_original_request',
  'memory_utilization_of_original_request',
  'cpu_usage',
  'memory_usage',
] as const;

export type MetricName = (typeof METRIC_NAMES)[number];

export function isMetricName(text: string): text is MetricName {
  return (METRIC_NAMES as readonly string[]).includes(text);
}

export type MeasuredResource = 'cpu' | 'memory';

/** What a metric divides usage by: the declared limit, the declared request, or nothing. */
export type MetricBase = 'limit' | 'request' | 'none';

export interface MetricMeaning {
  resource: MeasuredResource;
  base: MetricBase;
}

const MEANINGS: Readonly<Record<MetricName, MetricMeaning>> = {
  cpu_utilization_of_limit: { resource: 'cpu', base: 'limit' },
  memory_utilization_of_limit: { resource: 'memory', base: 'limit' },
  cpu_utilization_of_original_request: { resource: 'cpu', base: 'request' },
  memory_utilization_of_original_request: {
    resource: 'memory',
    base: 'request',
  },
  cpu_usage: { resource: 'cpu', base: 'none' },
  memory_usage: { resource: 'memory', base: 'none' },
};

export function metricMeaning(metric: MetricName): MetricMeaning {
  return MEANINGS[metric];
}

/** The metrics in percent of a declared base, the ones served whole and per Deployment. */
export const UTILIZATION_METRICS = METRIC_NAMES.filter(
  (metric) => MEANINGS[metric].base !== 'none',
);

export function isUtilizationMetric(metric: MetricName): boolean {
  return MEANINGS[metric].base !== 'none';
}
