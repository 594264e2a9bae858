import type { ContainerUsage } from '@tandem/custom-metrics';
import {
  apiResponseData,
  type PrometheusSample,
  vectorSamples,
} from '@tandem/prometheus-api';
import type { UsageReader } from './usage-source.js';

export interface PrometheusUsageOptions {
  /** `--prometheus-url`, e.g. `http://prometheus.monitoring.svc:9090` (a path prefix is kept). */
  readonly url: string;
  /** `--prometheus-cpu-query`: cores per pod and container; `<<namespace>>` is replaced. */
  readonly cpuQuery: string;
  /** `--prometheus-memory-query`: bytes per pod and container; `<<namespace>>` is replaced. */
  readonly memoryQuery: string;
  /** `--prometheus-timeout`: both queries of one read, together. */
  readonly timeoutMs: number;
  /** Node's global fetch unless given. */
  readonly fetch?: typeof fetch;
}

const NAMESPACE_PLACEHOLDER = '<<namespace>>';

/** The text as the inside of a PromQL double-quoted string (Go escapes). */
function promqlStringContent(text: string): string {
  return text.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** The query for one namespace; a function replacement, so `$&` in a name stays literal. */
export function namespaceQuery(query: string, namespace: string): string {
  const quoted = promqlStringContent(namespace);
  return query.replaceAll(NAMESPACE_PLACEHOLDER, () => quoted);
}

/**
 * fetch rejects with `TypeError: fetch failed`; its cause says what failed (e.g. `connect
 * ECONNREFUSED …`, possibly only as a `code` on an AggregateError). No `instanceof`: the
 * errors may come from another realm.
 */
function fetchErrorText(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const inner = typeof cause === 'object' && cause !== null ? cause : error;
  const { message, code } = (inner ?? {}) as NodeJS.ErrnoException;
  return message || code || String(inner);
}

/** Per pod name, per container name, one value of one query. */
type ValuesByPod = Map<string, Map<string, number>>;

function byPodAndContainer(
  samples: readonly PrometheusSample[],
  what: string,
): ValuesByPod {
  const byPod: ValuesByPod = new Map();
  for (const { labels, value } of samples) {
    const { pod, container } = labels;
    if (!pod || !container)
      throw new Error(
        `${what} query: a series without "pod" and "container" labels (${JSON.stringify(labels)}); the query must aggregate by (pod, container)`,
      );
    const containers = byPod.get(pod) ?? new Map<string, number>();
    if (containers.has(container))
      throw new Error(
        `${what} query: several series for pod ${pod} container ${container}; the query must aggregate by (pod, container)`,
      );
    byPod.set(pod, containers.set(container, value));
  }
  return byPod;
}

/**
 * Current usage from two instant queries, CPU and memory, run in parallel and bounded
 * together by `timeoutMs`. Each answer must be a vector labelled `pod` and `container`
 * with at most one series per container. A failure (no connection, timeout, HTTP error,
 * Prometheus error, unexpected answer) rejects with the endpoint and the cause.
 */
export function prometheusUsage(options: PrometheusUsageOptions): UsageReader {
  const fetchFn = options.fetch ?? fetch;
  const endpoint = new URL(options.url);
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/api/v1/query`;
  endpoint.search = '';
  endpoint.hash = '';

  const instantQuery = async (
    what: string,
    query: string,
    signal: AbortSignal,
  ): Promise<ValuesByPod> => {
    const url = new URL(endpoint);
    url.search = new URLSearchParams({ query }).toString();
    let status: number;
    let body: string;
    try {
      const response = await fetchFn(url, {
        signal,
        headers: { accept: 'application/json' },
      });
      status = response.status;
      body = await response.text();
    } catch (error) {
      throw new Error(fetchErrorText(error), { cause: error });
    }
    let samples;
    try {
      samples = vectorSamples(apiResponseData(status, body));
    } catch (error) {
      throw new Error(`${what} query: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return byPodAndContainer(samples, what);
  };

  return async (namespace) => {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    // The first failure cancels the other query: its answer could not be used anyway.
    const cancel = new AbortController();
    const signal = AbortSignal.any([timeout, cancel.signal]);
    const run = (what: string, query: string) =>
      instantQuery(what, namespaceQuery(query, namespace), signal).catch(
        (error: unknown) => {
          cancel.abort();
          throw error;
        },
      );
    let cpu: ValuesByPod;
    let memory: ValuesByPod;
    try {
      [cpu, memory] = await Promise.all([
        run('cpu', options.cpuQuery),
        run('memory', options.memoryQuery),
      ]);
    } catch (error) {
      const reason = timeout.aborted
        ? `no answer within --prometheus-timeout (${options.timeoutMs} ms)`
        : (error as Error).message;
      throw new Error(`Prometheus ${endpoint.href}: ${reason}`, {
        cause: error,
      });
    }

    const usage = new Map<string, ContainerUsage[]>();
    for (const [pod, cpuByContainer] of cpu) {
      const containers: ContainerUsage[] = [];
      for (const [name, cpuCores] of cpuByContainer) {
        const memoryBytes = memory.get(pod)?.get(name);
        // A container with only one of the two series (a scrape that has not caught up
        // with a new container, a series gone stale) is left out rather than given 0 for
        // the missing one: that 0 would pass for a measured 0% and could make an HPA
        // scale down on data Prometheus never had. Left out, the container has no usage,
        // as when metrics-server has not sampled it yet, and the metric says so. NaN or
        // infinite values (e.g. a rate over too few points) are missing data alike.
        if (
          memoryBytes === undefined ||
          !Number.isFinite(cpuCores) ||
          !Number.isFinite(memoryBytes)
        )
          continue;
        containers.push({ name, cpuCores, memoryBytes });
      }
      if (containers.length > 0) usage.set(pod, containers);
    }
    return usage;
  };
}
