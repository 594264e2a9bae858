import type { SimulatedUsage } from '../harness/usage.ts';

const PERIOD_MS = 5 * 60 * 1000;

/**
 * The demo's simulated load: a daily-traffic shape squeezed into five minutes, so the
 * HPA (and, once they run, the VPA) have something to react to while you watch. Each pod
 * gets a slightly different phase so they do not move in lockstep.
 */
export function demoUsage(nowMs: number, podIndex: number): SimulatedUsage {
  const phase = (2 * Math.PI * nowMs) / PERIOD_MS + podIndex * 0.4;
  const cpuMillicores = Math.round(150 + 100 * Math.sin(phase));
  const memoryMiB = Math.round(200 + 30 * Math.sin(phase / 2));
  return { cpu: `${cpuMillicores}m`, memory: `${memoryMiB}Mi` };
}
