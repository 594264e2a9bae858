import type { ObservedHpa, ObservedVpa, TargetRef } from './observed.js';

/** A workload some VPA or HPA points at, with the first of each (by name) that does. */
export interface FleetTarget {
  readonly key: string;
  readonly namespace: string;
  readonly ref: TargetRef;
  readonly vpa?: ObservedVpa;
  readonly hpa?: ObservedHpa;
}

/** `namespace/kind/name`: one workload, whichever objects point at it. */
export function workloadKey(namespace: string, ref: TargetRef): string {
  return `${namespace}/${ref.kind}/${ref.name}`;
}

/**
 * Every workload a VPA or an HPA targets, in key order. A workload with two VPAs (which
 * upstream refuses to act on) shows the first by name; a ref without kind or name is left out.
 */
export function fleetTargets(
  vpas: readonly ObservedVpa[],
  hpas: readonly ObservedHpa[],
): FleetTarget[] {
  const targets = new Map<
    string,
    { namespace: string; ref: TargetRef; vpa?: ObservedVpa; hpa?: ObservedHpa }
  >();
  const add = (
    namespace: string,
    ref: TargetRef,
    owner: { vpa: ObservedVpa } | { hpa: ObservedHpa },
  ) => {
    if (ref.kind === '' || ref.name === '') return;
    const key = workloadKey(namespace, ref);
    const target = targets.get(key) ?? { namespace, ref };
    if (
      'vpa' in owner &&
      (target.vpa === undefined || owner.vpa.name < target.vpa.name)
    )
      target.vpa = owner.vpa;
    if (
      'hpa' in owner &&
      (target.hpa === undefined || owner.hpa.name < target.hpa.name)
    )
      target.hpa = owner.hpa;
    targets.set(key, target);
  };
  for (const vpa of vpas) add(vpa.namespace, vpa.targetRef, { vpa });
  for (const hpa of hpas) add(hpa.namespace, hpa.targetRef, { hpa });
  return [...targets]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, target]) => ({ key, ...target }));
}
