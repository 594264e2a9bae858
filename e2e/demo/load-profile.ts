import type { WorkloadLoad } from '../harness/load-driver.ts';

const PERIOD_MS = 5 * 60 * 1000;
const MiB = 1024 * 1024;

/**
 * The demo workload's TOTAL CPU in millicores: a daily-traffic shape squeezed into five
 * minutes, two pods' worth (300m) swinging by ±200m. The load driver splits it over the
 * Ready pods, so when an HPA (40 % of a 400m request: 160m a pod) adds replicas each pod's
 * usage falls and the HPA settles, between 1 and 4 replicas over a cycle.
 */
export function demoCpuMillicores(elapsedMs: number): number {
  return Math.round(
    300 + 200 * Math.sin((2 * Math.PI * elapsedMs) / PERIOD_MS),
  );
}

/** The workload's total memory in bytes: 400Mi ± 60Mi, drifting at half the CPU's pace. */
export function demoMemoryBytes(elapsedMs: number): number {
  return (
    Math.round(400 + 60 * Math.sin((Math.PI * elapsedMs) / PERIOD_MS)) * MiB
  );
}

/** The demo's load, for startLoadDriver. */
export function demoLoad(): WorkloadLoad {
  return { cpuMillicores: demoCpuMillicores, memoryBytes: demoMemoryBytes };
}
