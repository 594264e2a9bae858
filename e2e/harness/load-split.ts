// The pure half of the load driver (load-driver.ts): how a workload's total load becomes
// each pod's usage annotations. No cluster, no clock: the driver passes both in.
import type { V1Pod } from '@kubernetes/client-node';

/** A constant, or a profile over the time since the load was set (ms). */
export type LoadValue = number | ((elapsedMs: number) => number);

export interface WorkloadLoad {
  /** Total CPU of the workload in millicores at time t (ms since start): a constant or a profile. */
  cpuMillicores: LoadValue;
  /** Total memory in bytes, same form; default: DEFAULT_POD_MEMORY_BYTES per pod, however many pods. */
  memoryBytes?: LoadValue;
  /**
   * Per-container share of each pod's load, e.g. `{ app: 1, sidecar: 0 }`: the sidecar idles
   * at the floor, and so does every container the map does not name. Default: kwok's
   * pod-wide annotation, which gives every container of the pod the pod's whole share.
   */
  containerShares?: Record<string, number>;
}

export interface PodUsage {
  cpuMillicores: number;
  memoryBytes: number;
}

/** metrics-server drops a container whose CPU counter or memory is zero: nothing goes below these. */
export const MIN_CPU_MILLICORES = 1;
export const MIN_MEMORY_BYTES = 1024 * 1024;
/** Memory per pod when the load names none: small, and the same however many pods there are. */
export const DEFAULT_POD_MEMORY_BYTES = 64 * 1024 * 1024;

/** kwok's annotations for every container of the pod, and Tandem's per-container ones (e2e/control-plane/kwok/metrics.yaml). */
export const POD_CPU_ANNOTATION = 'kwok.x-k8s.io/usage-cpu';
export const POD_MEMORY_ANNOTATION = 'kwok.x-k8s.io/usage-memory';
export const CONTAINER_CPU_ANNOTATION_PREFIX = 'tandem.dev/usage-cpu.';
export const CONTAINER_MEMORY_ANNOTATION_PREFIX = 'tandem.dev/usage-memory.';

/** What the split needs to know of a pod; see podView. */
export interface PodView {
  name: string;
  /** Counted in the split: Running and Ready. Others get the share they will have once counted. */
  ready: boolean;
  containers: readonly string[];
  annotations: Readonly<Record<string, string>>;
}

export interface PodPlan {
  usage: PodUsage;
  /** The annotations to merge into the pod. */
  annotations: Record<string, string>;
}

/** Rejects a load that can only be a mistake, before it reaches a background loop. */
export function checkLoad(load: WorkloadLoad): WorkloadLoad {
  for (const [what, value] of [
    ['cpuMillicores', load.cpuMillicores],
    ['memoryBytes', load.memoryBytes],
  ] as const) {
    if (typeof value === 'number' && !(Number.isFinite(value) && value >= 0))
      throw new Error(`${what} must be a finite number >= 0, got ${value}`);
  }
  const shares = Object.entries(load.containerShares ?? {});
  if (shares.some(([, share]) => !(Number.isFinite(share) && share >= 0)))
    throw new Error(
      `container shares must be finite and >= 0: ${JSON.stringify(load.containerShares)}`,
    );
  if (
    load.containerShares !== undefined &&
    !shares.some(([, share]) => share > 0)
  )
    throw new Error(
      `at least one container share must be > 0: ${JSON.stringify(load.containerShares)}`,
    );
  return load;
}

/** The value at `elapsedMs`, as a whole number >= 0 (a profile may return anything). */
export function loadValueAt(value: LoadValue, elapsedMs: number): number {
  const raw = typeof value === 'number' ? value : value(elapsedMs);
  return Number.isFinite(raw) && raw > 0 ? Math.round(raw) : 0;
}

/**
 * Splits a whole-number `total` by `weights` into whole numbers that sum to it exactly
 * (largest remainder: the parts with the largest fractions get the leftover units, ties to
 * the first), then raises every part to `floor`. The sum only exceeds `total` when the
 * floors demand it (a zero weight, or a total below floor × parts).
 */
export function splitByWeights(
  total: number,
  weights: readonly number[],
  floor: number,
): number[] {
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
  if (weightSum <= 0) return weights.map(() => floor);
  const exact = weights.map((weight) => (total * weight) / weightSum);
  const parts = exact.map(Math.floor);
  let leftover = total - parts.reduce((sum, part) => sum + part, 0);
  const byFraction = exact
    .map((value, index) => ({ index, fraction: value - Math.floor(value) }))
    .sort((a, b) => b.fraction - a.fraction || a.index - b.index);
  for (const { index } of byFraction) {
    if (leftover <= 0) break;
    parts[index] = (parts[index] ?? 0) + 1;
    leftover -= 1;
  }
  return parts.map((part) => Math.max(part, floor));
}

/** Even split: parts differ by at most 1 and sum to `total` (floors permitting). */
export function splitEvenly(
  total: number,
  parts: number,
  floor: number,
): number[] {
  return splitByWeights(total, new Array<number>(parts).fill(1), floor);
}

/**
 * The driver's view of a pod, or undefined for a pod that is leaving (deleting, or finished):
 * it gets no share and no writes.
 */
export function podView(pod: V1Pod): PodView | undefined {
  const phase = pod.status?.phase;
  if (
    pod.metadata?.deletionTimestamp !== undefined ||
    phase === 'Succeeded' ||
    phase === 'Failed'
  )
    return undefined;
  const ready =
    phase === 'Running' &&
    (pod.status?.conditions ?? []).some(
      (condition) => condition.type === 'Ready' && condition.status === 'True',
    );
  return {
    name: pod.metadata?.name ?? '',
    ready,
    containers: (pod.spec?.containers ?? []).map((container) => container.name),
    annotations: pod.metadata?.annotations ?? {},
  };
}

/**
 * Each pod's usage at `elapsedMs`. The Ready pods share the total evenly, so their usage
 * sums to it (within the floors). A pod that is not Ready yet gets the share it will have
 * once it and every other starting pod count: it does not sit at 1m and drag down the
 * average the HPA sees while it becomes Ready. Pods are taken in name order, so the
 * leftover millicores land on the same pods from one round to the next.
 */
export function planPodUsage(
  load: WorkloadLoad,
  elapsedMs: number,
  pods: readonly Pick<PodView, 'name' | 'ready'>[],
): Map<string, PodUsage> {
  const sorted = [...pods].sort((a, b) => a.name.localeCompare(b.name));
  const ready = sorted.filter((pod) => pod.ready);
  const starting = sorted.filter((pod) => !pod.ready);
  const perPod = (value: LoadValue | undefined, floor: number, fixed: number) =>
    perPodValues(value, elapsedMs, ready.length, starting.length, floor, fixed);
  const cpu = perPod(
    load.cpuMillicores,
    MIN_CPU_MILLICORES,
    MIN_CPU_MILLICORES,
  );
  const memory = perPod(
    load.memoryBytes,
    MIN_MEMORY_BYTES,
    DEFAULT_POD_MEMORY_BYTES,
  );
  const plan = new Map<string, PodUsage>();
  ready.forEach((pod, index) =>
    plan.set(pod.name, {
      cpuMillicores: cpu.ready[index] ?? MIN_CPU_MILLICORES,
      memoryBytes: memory.ready[index] ?? MIN_MEMORY_BYTES,
    }),
  );
  starting.forEach((pod, index) =>
    plan.set(pod.name, {
      cpuMillicores: cpu.starting[index] ?? MIN_CPU_MILLICORES,
      memoryBytes: memory.starting[index] ?? MIN_MEMORY_BYTES,
    }),
  );
  return plan;
}

/**
 * One resource's per-pod values: `fixed` for each pod when the load names no total, else
 * the total split over the Ready pods, and for the starting ones the last parts of the
 * split over everyone (the values the split gives them once they count; pods that start
 * together take the smaller parts).
 */
function perPodValues(
  value: LoadValue | undefined,
  elapsedMs: number,
  readyCount: number,
  startingCount: number,
  floor: number,
  fixed: number,
): { ready: number[]; starting: number[] } {
  if (value === undefined)
    return {
      ready: new Array<number>(readyCount).fill(fixed),
      starting: new Array<number>(startingCount).fill(fixed),
    };
  const total = loadValueAt(value, elapsedMs);
  return {
    ready: splitEvenly(total, readyCount, floor),
    starting: splitEvenly(total, readyCount + startingCount, floor).slice(
      readyCount,
    ),
  };
}

/**
 * The annotations that make kwok report `usage` for the pod. Without shares: kwok's
 * pod-wide pair (every container reports the pod's share), plus any per-container
 * annotation already on the pod, which would otherwise win over the pod-wide one. With
 * shares: a per-container pair for every container of the pod, split by share, and the
 * pod-wide pair at the floor, so a container the shares leave out idles instead of
 * inheriting an older pod-wide value.
 */
export function usageAnnotations(
  usage: PodUsage,
  pod: Pick<PodView, 'containers' | 'annotations'>,
  containerShares?: Readonly<Record<string, number>>,
): Record<string, string> {
  const cpu = (millicores: number) => `${millicores}m`;
  const memory = (bytes: number) => String(bytes);
  if (containerShares === undefined) {
    const annotations: Record<string, string> = {
      [POD_CPU_ANNOTATION]: cpu(usage.cpuMillicores),
      [POD_MEMORY_ANNOTATION]: memory(usage.memoryBytes),
    };
    for (const key of Object.keys(pod.annotations)) {
      if (key.startsWith(CONTAINER_CPU_ANNOTATION_PREFIX))
        annotations[key] = cpu(usage.cpuMillicores);
      if (key.startsWith(CONTAINER_MEMORY_ANNOTATION_PREFIX))
        annotations[key] = memory(usage.memoryBytes);
    }
    return annotations;
  }
  const weights = pod.containers.map((name) => containerShares[name] ?? 0);
  const cpuParts = splitByWeights(
    usage.cpuMillicores,
    weights,
    MIN_CPU_MILLICORES,
  );
  const memoryParts = splitByWeights(
    usage.memoryBytes,
    weights,
    MIN_MEMORY_BYTES,
  );
  const annotations: Record<string, string> = {
    [POD_CPU_ANNOTATION]: cpu(MIN_CPU_MILLICORES),
    [POD_MEMORY_ANNOTATION]: memory(MIN_MEMORY_BYTES),
  };
  pod.containers.forEach((name, index) => {
    annotations[CONTAINER_CPU_ANNOTATION_PREFIX + name] = cpu(
      cpuParts[index] ?? MIN_CPU_MILLICORES,
    );
    annotations[CONTAINER_MEMORY_ANNOTATION_PREFIX + name] = memory(
      memoryParts[index] ?? MIN_MEMORY_BYTES,
    );
  });
  return annotations;
}

/** True when the pod already carries every annotation of `wanted`: nothing to write. */
export function hasAnnotations(
  current: Readonly<Record<string, string>>,
  wanted: Readonly<Record<string, string>>,
): boolean {
  return Object.entries(wanted).every(([key, value]) => current[key] === value);
}

/** Usage and annotations for every pod: what one round of the driver writes. */
export function planLoad(
  load: WorkloadLoad,
  elapsedMs: number,
  pods: readonly PodView[],
): Map<string, PodPlan> {
  const usage = planPodUsage(load, elapsedMs, pods);
  const plans = new Map<string, PodPlan>();
  for (const pod of pods) {
    const podUsage = usage.get(pod.name);
    if (podUsage === undefined) continue;
    plans.set(pod.name, {
      usage: podUsage,
      annotations: usageAnnotations(podUsage, pod, load.containerShares),
    });
  }
  return plans;
}
