import {
  HISTORY_METRICS,
  historyGauges,
  historyValues,
  type FleetSampler,
  type HistoryGauge,
  type WorkloadSummary,
} from '@tandem/dashboard-core';
import { Gauge, type Registry } from '@tandem/telemetry';

const WORKLOAD_LABELS = ['namespace', 'kind', 'workload'] as const;

const HELP: Record<string, [string, readonly string[]]> = {
  [HISTORY_METRICS.replicas]: [
    'Replicas of a workload: running under its HPA (replicas="running"), or what a native Resource HPA with the same target would run from the same usage (replicas="native_equivalent").',
    ['replicas'],
  ],
  [HISTORY_METRICS.cpu]: [
    "A container's CPU in cores, by line: declared, request (now), the VPA's target, lower and upper bound, usage (mean a pod).",
    ['container', 'line'],
  ],
  [HISTORY_METRICS.memory]: [
    "A container's memory in bytes, by line: declared, request (now), the VPA's target, lower and upper bound, usage (mean a pod).",
    ['container', 'line'],
  ],
};

/**
 * Registers the gauges of every workload's last sample (`HISTORY_METRICS`), set at each
 * scrape from the sampler's summaries: a Prometheus that scrapes the dashboard keeps the
 * history its pages draw, and `--prometheus-url` reads it back past memory's.
 */
export function exportHistory(registry: Registry, sampler: FleetSampler): void {
  // Worked out once a sample, however many gauges and scrapes read it.
  let last: { of: readonly WorkloadSummary[]; gauges: HistoryGauge[] } = {
    of: [],
    gauges: [],
  };
  const current = (): HistoryGauge[] => {
    const summaries = sampler.summaries();
    if (last.of !== summaries)
      last = {
        of: summaries,
        gauges: summaries.flatMap((summary) =>
          historyGauges(
            {
              namespace: summary.namespace,
              kind: summary.kind,
              workload: summary.name,
            },
            historyValues(summary),
          ),
        ),
      };
    return last.gauges;
  };
  for (const [name, [help, labels]] of Object.entries(HELP))
    registry.registerMetric(
      new Gauge({
        name,
        help,
        labelNames: [...WORKLOAD_LABELS, ...labels],
        registers: [],
        collect() {
          this.reset();
          for (const gauge of current())
            if (gauge.metric === name) this.set(gauge.labels, gauge.value);
        },
      }),
    );
}
