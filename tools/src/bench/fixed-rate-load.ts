import { setTimeout as sleep } from 'node:timers/promises';
import {
  RepeatedRequest,
  type LoadRequest,
  type Outcome,
} from './repeated-request.js';

export type { LoadRequest } from './repeated-request.js';

export interface FixedRateLoadOptions extends LoadRequest {
  /** Requests per second, sent open-loop: a slow answer does not delay the next request. */
  rate: number;
  durationMs: number;
}

export interface LoadResult {
  /** Latency of every answered request in ms, sorted; measured from its scheduled start. */
  latenciesMs: Float64Array;
  /** Requests that failed or were not answered with 200. */
  failures: number;
  /** Requests answered per second over the whole run. */
  achievedRate: number;
}

/**
 * An open-loop HTTPS (or plain HTTP) load at a fixed rate. Each request's latency counts from the moment it
 * was due, not from when it was sent, so a server (or a load generator) that falls behind
 * shows in the percentiles instead of quietly lowering the rate: the "coordinated omission"
 * that closed-loop tools report as good news. Latency is measured with a sub-millisecond
 * clock (autocannon's histogram resolves whole milliseconds, too coarse for a webhook that
 * answers in a fraction of one). The generator wakes when the next request is due, not on
 * a fixed tick, and keeps nothing per request but its latency.
 */
export async function fixedRateLoad(
  options: FixedRateLoadOptions,
): Promise<LoadResult> {
  const total = Math.round((options.rate * options.durationMs) / 1000);
  const intervalMs = 1000 / options.rate;
  // Preallocated, and no promise kept per request: the generator shares the cores with
  // what it measures, and its own garbage collection would count as the server's latency.
  const latencies = new Float64Array(total);
  let answered = 0;
  let failures = 0;
  let settled = 0;
  let allSettled = (): void => undefined;
  const done = new Promise<void>((resolve) => (allSettled = resolve));
  const start = performance.now();
  const requests = new RepeatedRequest(options, (sent, outcome) => {
    if (outcome.status === 200)
      latencies[answered++] = performance.now() - (start + sent * intervalMs);
    else failures += 1;
    settled += 1;
    if (settled === total) allSettled();
  });
  let sent = 0;
  while (sent < total) {
    const due = Math.min(
      total,
      Math.floor((performance.now() - start) / intervalMs) + 1,
    );
    for (; sent < due; sent += 1) requests.send(sent);
    if (sent < total)
      await sleep(Math.max(0, start + sent * intervalMs - performance.now()));
  }
  if (total > 0) await done;
  const elapsedS = (performance.now() - start) / 1000;
  requests.close();
  return {
    latenciesMs: latencies.slice(0, answered).sort(),
    failures,
    achievedRate: answered / elapsedS,
  };
}

/**
 * A closed-loop load: `connections` requests in flight, each sent as soon as the previous
 * one on its connection is answered, for `durationMs`. Its `achievedRate` is the highest
 * rate the server sustains with that concurrency (latencies here count from the send).
 */
export async function closedLoopLoad(
  options: LoadRequest & { durationMs: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  const sentAt = new Float64Array(options.connections);
  let running = options.connections;
  let allStopped = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (allStopped = resolve));
  const start = performance.now();
  const end = start + options.durationMs;
  const requests = new RepeatedRequest(options, (sender, outcome) => {
    const now = performance.now();
    if (outcome.status === 200) latencies.push(now - (sentAt[sender] ?? now));
    else failures += 1;
    if (now < end) {
      sentAt[sender] = now;
      requests.send(sender);
    } else if (--running === 0) allStopped();
  });
  for (let sender = 0; sender < options.connections; sender += 1) {
    sentAt[sender] = performance.now();
    requests.send(sender);
  }
  await stopped;
  const elapsedS = (performance.now() - start) / 1000;
  requests.close();
  return {
    latenciesMs: Float64Array.from(latencies).sort(),
    failures,
    achievedRate: latencies.length / elapsedS,
  };
}

/** One request's answer body, on a connection of its own (to check what a load measures). */
export async function answerOf(options: LoadRequest): Promise<string> {
  const outcome = await new Promise<Outcome>((resolve) => {
    const requests = new RepeatedRequest(
      { ...options, connections: 1 },
      (_, answer) => {
        requests.close();
        resolve(answer);
      },
      true,
    );
    requests.send(0);
  });
  if (outcome.status === undefined) throw outcome.error;
  return outcome.body?.toString('utf8') ?? '';
}

/** The q-quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}
