import { AggregateContainerState, ContainerState } from '@tandem/estimators';

// Deterministic synthetic usage for benchmarks, drawn from `seededRandom`: every run sees
// the same numbers, so figures differ only by the code and the machine.

export interface ContainerUsageProfile {
  /** Typical CPU use in millicores and memory in bytes; samples vary around them. */
  cpuMillicores: number;
  memoryBytes: number;
}

/** Containers of very different sizes, as on a real cluster (10m..4 cores, 50Mi..8Gi). */
export function containerProfiles(
  count: number,
  random: () => number,
): ContainerUsageProfile[] {
  return Array.from({ length: count }, () => ({
    cpuMillicores: Math.round(10 * Math.pow(400, random())),
    memoryBytes: Math.round(50 * 1048576 * Math.pow(160, random())),
  }));
}

/** A sample around the profile: CPU ±30 %, memory ±10 %. */
export function usageAround(
  profile: ContainerUsageProfile,
  random: () => number,
): { cpuMillicores: number; memoryBytes: number } {
  return {
    cpuMillicores: Math.max(
      0,
      Math.round(profile.cpuMillicores * (0.7 + 0.6 * random())),
    ),
    memoryBytes: Math.round(profile.memoryBytes * (0.9 + 0.2 * random())),
  };
}

const SAMPLE_INTERVAL_MS = 5 * 60 * 1000;
const SAMPLES_PER_DAY = 288; // one sample every five minutes

/** An aggregate fed a day of usage around `profile`, one CPU and memory sample every 5 min. */
export function dayOfUsage(
  profile: ContainerUsageProfile,
  startMs: number,
  random: () => number,
): AggregateContainerState {
  const aggregate = new AggregateContainerState(startMs);
  const container = new ContainerState(aggregate);
  for (let i = 0; i < SAMPLES_PER_DAY; i += 1) {
    const timeMs = startMs + i * SAMPLE_INTERVAL_MS;
    const usage = usageAround(profile, random);
    container.addSample({
      timeMs,
      resource: 'cpu',
      usage: usage.cpuMillicores,
    });
    container.addSample({
      timeMs,
      resource: 'memory',
      usage: usage.memoryBytes,
    });
  }
  return aggregate;
}
