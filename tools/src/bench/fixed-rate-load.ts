import { Agent, request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FixedRateLoadOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** CA bundle the server's certificate chains to. */
  ca: string;
  /** Requests per second, sent open-loop: a slow answer does not delay the next request. */
  rate: number;
  durationMs: number;
  /** Keep-alive connections the load may open. */
  connections: number;
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
 * An open-loop HTTPS load at a fixed rate. Each request's latency counts from the moment it
 * was due, not from when it was sent, so a server (or a load generator) that falls behind
 * shows in the percentiles instead of quietly lowering the rate: the "coordinated omission"
 * that closed-loop tools report as good news. Latency is measured with a sub-millisecond
 * clock (autocannon's histogram resolves whole milliseconds, too coarse for a webhook that
 * answers in a fraction of one).
 */
export async function fixedRateLoad(
  options: FixedRateLoadOptions,
): Promise<LoadResult> {
  const agent = new Agent({
    keepAlive: true,
    maxSockets: options.connections,
    ca: options.ca,
  });
  const total = Math.round((options.rate * options.durationMs) / 1000);
  const latencies: number[] = [];
  let failures = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(
      total,
      Math.floor(((performance.now() - start) * options.rate) / 1000) + 1,
    );
    for (; sent < due; sent += 1) {
      const scheduled = start + (sent * 1000) / options.rate;
      inFlight.push(
        send(agent, options).then(
          (ok) => {
            if (ok) latencies.push(performance.now() - scheduled);
            else failures += 1;
          },
          () => {
            failures += 1;
          },
        ),
      );
    }
    await sleep(1);
  }
  await Promise.all(inFlight);
  const elapsedS = (performance.now() - start) / 1000;
  agent.destroy();
  return {
    latenciesMs: Float64Array.from(latencies).sort(),
    failures,
    achievedRate: latencies.length / elapsedS,
  };
}

function send(agent: Agent, options: FixedRateLoadOptions): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      options.url,
      { method: 'POST', agent, headers: options.headers },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode === 200));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** The q-quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}
