import { yieldToEventLoop } from './event-loop.js';
import type { FleetSampler } from './fleet-sampler.js';

interface Written {
  readonly workloads: readonly unknown[];
  readonly sampledMs: number | undefined;
  readonly body: string;
}

const written = new WeakMap<FleetSampler, Written>();

/**
 * `/api/workloads`' body: `{"sampledAt": …, "workloads": […]}`. The summaries change once
 * a sample, so the JSON is written once a sample (2 MiB and some 20 ms for 2,000
 * workloads; the app does it right after sampling) and every answer until the next one
 * reuses it.
 */
export function workloadsJson(sampler: FleetSampler): string {
  const workloads = sampler.summaries();
  const sampledMs = sampler.lastSampleMs();
  const last = written.get(sampler);
  if (last?.workloads === workloads && last.sampledMs === sampledMs)
    return last.body;
  const body = JSON.stringify({
    sampledAt:
      sampledMs === undefined ? null : new Date(sampledMs).toISOString(),
    workloads,
  });
  written.set(sampler, { workloads, sampledMs, body });
  return body;
}

/** Workloads written between two turns of the event loop: about 2 ms of CPU. */
const SLICE = 200;

/**
 * The same body, written a slice of workloads at a time with the event loop turning in
 * between, and kept for `workloadsJson`: the sampling loop writes it this way, so no answer
 * waits the whole ~20 ms behind it.
 */
export async function prepareWorkloadsJson(
  sampler: FleetSampler,
): Promise<string> {
  const workloads = sampler.summaries();
  const sampledMs = sampler.lastSampleMs();
  const last = written.get(sampler);
  if (last?.workloads === workloads && last.sampledMs === sampledMs)
    return last.body;
  const slices: string[] = [];
  for (let from = 0; from < workloads.length; from += SLICE) {
    if (from > 0) await yieldToEventLoop();
    slices.push(
      workloads
        .slice(from, from + SLICE)
        .map((workload) => JSON.stringify(workload))
        .join(','),
    );
  }
  const sampledAt =
    sampledMs === undefined ? null : new Date(sampledMs).toISOString();
  const body = `{"sampledAt":${JSON.stringify(sampledAt)},"workloads":[${slices.join(',')}]}`;
  written.set(sampler, { workloads, sampledMs, body });
  return body;
}
