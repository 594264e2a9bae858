import {
  parseCpuMillicores,
  parseMemoryBytes,
  QuantityError,
} from '@tandem/vpa-api';
import {
  lessTrusted,
  podOriginals,
  type PodOriginals,
} from './declared-resources.js';
import {
  measuredContainers,
  type MeasuredContainer,
} from './measured-containers.js';
import {
  metricMeaning,
  type MeasuredResource,
  type MetricName,
} from './metric-names.js';
import type {
  ContainerUsage,
  OriginalsSource,
  PodForMetrics,
  PodMetricResult,
} from './pod-for-metrics.js';

/**
 * One pod's value of `metric` (reference §4.3 (a)(b)(c)), over `container` alone or, when
 * undefined, over the pod's containers (see `measuredContainers`).
 *
 * - `*_utilization_of_limit` / `*_utilization_of_original_request`: 100 × usage ÷ the
 *   DECLARED limit or request (see `podOriginals`), summed over the same containers.
 *   The denominators are what the user declared because the VPA rewrites the current
 *   ones, limits included (`RequestsAndLimits` keeps their ratio): measured against
 *   current values the metric would drift with every VPA update exactly as the native
 *   HPA's does. Every summed container must declare the base; otherwise there is no
 *   value, never a guess, and the reason names the container.
 * - `cpu_usage` (cores) / `memory_usage` (bytes): the summed usage; no base needed.
 *
 * CPU bases are whole millicores, memory bases whole bytes (quantities rounded up, as
 * `MilliValue()` / `Value()` do). Never throws: every problem becomes a `reason`.
 */
export function podMetric(
  pod: PodForMetrics,
  usage: readonly ContainerUsage[] | undefined,
  metric: MetricName,
  container: string | undefined,
): PodMetricResult {
  const originals = podOriginals(pod);
  const withoutValue = (reason: string): PodMetricResult =>
    result(originals, originals.source, { reason });

  // The HPA applies no readiness rules to Pods metrics, so the adapter must leave these out.
  if (!pod.ready) return withoutValue('pod not ready');
  if (usage === undefined) return withoutValue('no metrics for pod');
  const measured = measuredContainers(pod, usage, container);
  if (!Array.isArray(measured)) return withoutValue(measured.reason);

  const source = measured
    .map(({ container: c }) => originals.declared(c).source)
    .reduce(lessTrusted, originals.source);
  const { resource, base } = metricMeaning(metric);
  const used = totalUsage(measured, resource);
  if (base === 'none') return result(originals, source, { value: used });

  const declared = totalDeclared(measured, originals, resource, base);
  if (typeof declared === 'string') {
    return result(originals, source, { reason: declared });
  }
  // CPU usage in cores against a base in millicores.
  const usedInBaseUnits = resource === 'cpu' ? used * 1000 : used;
  return result(originals, source, {
    value: (100 * usedInBaseUnits) / declared,
  });
}

function result(
  originals: PodOriginals,
  source: OriginalsSource,
  outcome: { value: number } | { reason: string },
): PodMetricResult {
  return {
    ...outcome,
    originals: source,
    ...(originals.malformedAnnotation === undefined
      ? {}
      : { malformedAnnotation: originals.malformedAnnotation }),
  };
}

function totalUsage(
  measured: readonly MeasuredContainer[],
  resource: MeasuredResource,
): number {
  let total = 0;
  for (const { usage } of measured) {
    total += resource === 'cpu' ? usage.cpuCores : usage.memoryBytes;
  }
  return total;
}

/** The summed declared base (millicores or bytes), or the reason there is none. */
function totalDeclared(
  measured: readonly MeasuredContainer[],
  originals: PodOriginals,
  resource: MeasuredResource,
  base: 'limit' | 'request',
): number | string {
  let total = 0;
  for (const { container } of measured) {
    const declared = originals.declared(container);
    const text = (base === 'limit' ? declared.limits : declared.requests)[
      resource
    ];
    if (text === undefined) {
      return `container ${container.name} has no ${resource} ${base}`;
    }
    try {
      total +=
        resource === 'cpu' ? parseCpuMillicores(text) : parseMemoryBytes(text);
    } catch (error) {
      if (!(error instanceof QuantityError)) throw error;
      return `container ${container.name} has an unreadable ${resource} ${base}: ${error.message}`;
    }
  }
  // A zero base (a request of 0 is legal) has no utilization; the HPA must see "missing".
  if (total <= 0) return `declared ${resource} ${base} is zero`;
  return total;
}
