import type { WorkloadSummary } from './workload-summary.js';

export const FLEET_SORTS = [
  'drift',
  'namespace',
  'name',
  'replicas',
  'native',
] as const;
export type FleetSort = (typeof FLEET_SORTS)[number];

export function isFleetSort(text: string): text is FleetSort {
  return (FLEET_SORTS as readonly string[]).includes(text);
}

/**
 * How many replicas Tandem saves the workload now: what a native HPA would run beyond what
 * runs. 0 without an HPA or a native figure.
 */
export function replicasSaved(workload: WorkloadSummary): number {
  if (workload.hpa === null || workload.nativeEquivalentReplicas === null)
    return 0;
  return workload.nativeEquivalentReplicas - workload.hpa.currentReplicas;
}

const byName = (a: WorkloadSummary, b: WorkloadSummary) =>
  a.namespace.localeCompare(b.namespace) ||
  a.name.localeCompare(b.name) ||
  a.kind.localeCompare(b.kind);

const KEYS: Readonly<
  Record<FleetSort, (w: WorkloadSummary) => number | string>
> = {
  drift: replicasSaved,
  namespace: (w) => w.namespace,
  name: (w) => w.name,
  replicas: (w) => w.hpa?.currentReplicas ?? -1,
  native: (w) => w.nativeEquivalentReplicas ?? -1,
};

/**
 * The fleet's rows in `sort` order; `drift` (the default) puts the workloads Tandem saved
 * the most replicas first. Ties, and `namespace`, go by namespace, name and kind.
 */
export function orderFleet(
  workloads: readonly WorkloadSummary[],
  sort: FleetSort,
  descending: boolean,
): WorkloadSummary[] {
  const key = KEYS[sort];
  const direction = descending ? -1 : 1;
  return [...workloads].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    const primary =
      typeof ka === 'number' && typeof kb === 'number'
        ? ka - kb
        : String(ka).localeCompare(String(kb));
    return primary * direction || byName(a, b);
  });
}
