import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent, request } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

/** What each request of a load sends, and how it connects. */
export interface LoadRequest {
  url: string;
  /** `POST` (the default) sends `body`; `GET` sends none. */
  method?: 'GET' | 'POST';
  body?: string;
  headers: Record<string, string>;
  /** CA bundle the server's certificate chains to; none for an `http:` URL. */
  ca?: string;
  /** A client certificate and its key (PEM), for a server that authenticates the peer. */
  cert?: string;
  key?: string;
  /** Keep-alive connections the load may open. */
  connections: number;
}

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
 * answers in a fraction of one).
 */
export async function fixedRateLoad(
  options: FixedRateLoadOptions,
): Promise<LoadResult> {
  const agent = loadAgent(options);
  const total = Math.round((options.rate * options.durationMs) / 1000);
  // Preallocated, and no promise kept per request: the generator shares the cores with
  // what it measures, and its own garbage collection would count as the server's latency.
  const latencies = new Float64Array(total);
  let answered = 0;
  let failures = 0;
  let settled = 0;
  let allSettled = (): void => undefined;
  const done = new Promise<void>((resolve) => (allSettled = resolve));
  const settle = (): void => {
    settled += 1;
    if (settled === total) allSettled();
  };
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(
      total,
      Math.floor(((performance.now() - start) * options.rate) / 1000) + 1,
    );
    for (; sent < due; sent += 1) {
      const scheduled = start + (sent * 1000) / options.rate;
      send(agent, options).then(
        (ok) => {
          if (ok) latencies[answered++] = performance.now() - scheduled;
          else failures += 1;
          settle();
        },
        () => {
          failures += 1;
          settle();
        },
      );
    }
    await sleep(1);
  }
  if (total > 0) await done;
  const elapsedS = (performance.now() - start) / 1000;
  agent.destroy();
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
  const agent = loadAgent(options);
  const latencies: number[] = [];
  let failures = 0;
  const start = performance.now();
  const end = start + options.durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const sentAt = performance.now();
      const ok = await send(agent, options).catch(() => false);
      if (ok) latencies.push(performance.now() - sentAt);
      else failures += 1;
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  const elapsedS = (performance.now() - start) / 1000;
  agent.destroy();
  return {
    latenciesMs: Float64Array.from(latencies).sort(),
    failures,
    achievedRate: latencies.length / elapsedS,
  };
}

function loadAgent(options: LoadRequest): HttpAgent {
  if (options.url.startsWith('http:'))
    return new HttpAgent({ keepAlive: true, maxSockets: options.connections });
  return new Agent({
    keepAlive: true,
    maxSockets: options.connections,
    ca: options.ca,
    cert: options.cert,
    key: options.key,
  });
}

function send(agent: HttpAgent, options: LoadRequest): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const outgoing = (options.url.startsWith('http:') ? httpRequest : request)(
      options.url,
      { method: options.method ?? 'POST', agent, headers: options.headers },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode === 200));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    if (options.body === undefined) outgoing.end();
    else outgoing.end(options.body);
  });
}

/** One request's answer body, on a connection of its own (to check what a load measures). */
export async function answerOf(options: LoadRequest): Promise<string> {
  const agent = loadAgent({ ...options, connections: 1 });
  try {
    return await new Promise((resolve, reject) => {
      const outgoing = request(
        options.url,
        { method: options.method ?? 'POST', agent, headers: options.headers },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve(body));
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(options.body);
    });
  } finally {
    agent.destroy();
  }
}

/** The q-quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}
