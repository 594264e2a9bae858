import type { PerContainer } from './observed.js';
import type { WorkloadSummary } from './workload-summary.js';

export type Resource = 'cpu' | 'memory';

/** The lines a container's plot draws for one resource, in drawing order. */
export const RESOURCE_LINES = [
  'declared',
  'request',
  'target',
  'lower',
  'upper',
  'usage',
] as const;
export type ResourceLine = (typeof RESOURCE_LINES)[number];

/** The name a history value has: `replicas`, `native`, or `<container>|<resource>|<line>`. */
export function resourceKey(
  container: string,
  resource: Resource,
  line: ResourceLine,
): string {
  return `${container}|${resource}|${line}`;
}

/** The containers a set of history values speaks of, in first-seen order. */
export function containersOf(values: Iterable<string>): string[] {
  const containers = new Set<string>();
  for (const key of values) {
    const bar = key.indexOf('|');
    if (bar > 0) containers.add(key.slice(0, bar));
  }
  return [...containers];
}

/** What one sample of a workload records: the figures its plots draw over time. */
export function historyValues(
  summary: WorkloadSummary,
): Record<string, number> {
  const values: Record<string, number> = {};
  if (summary.hpa !== null) values['replicas'] = summary.hpa.currentReplicas;
  if (summary.nativeEquivalentReplicas !== null)
    values['native'] = summary.nativeEquivalentReplicas;
  const lines: [ResourceLine, PerContainer | undefined][] = [
    ['declared', summary.declared],
    ['request', summary.current],
    ['target', summary.vpa?.target],
    ['lower', summary.vpa?.lowerBound],
    ['upper', summary.vpa?.upperBound],
    ['usage', summary.usage],
  ];
  for (const [line, perContainer] of lines)
    for (const [container, resources] of Object.entries(perContainer ?? {})) {
      if (resources.cpuMillicores !== undefined)
        values[resourceKey(container, 'cpu', line)] = resources.cpuMillicores;
      if (resources.memoryBytes !== undefined)
        values[resourceKey(container, 'memory', line)] = resources.memoryBytes;
    }
  return values;
}
