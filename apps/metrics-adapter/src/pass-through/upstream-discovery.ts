import { describeError } from '@tandem/kube';
import type { CustomMetricsVersion } from '@tandem/custom-metrics';
import type { UpstreamGet } from './upstream-client.js';

/** Long enough that kubectl's and the aggregator's discovery calls rarely wait on the upstream. */
export const DISCOVERY_TTL_MS = 30_000;
/** Short: discovery is on the aggregator's availability path, which must stay fast. */
export const DISCOVERY_TIMEOUT_MS = 2_000;

export type UpstreamDiscovery = (
  version: CustomMetricsVersion,
) => Promise<unknown>;

/**
 * The upstream's APIResourceList per version, read at most once per `ttlMs` (a failure too,
 * so a provider that is down delays one discovery call per TTL, not every one). Resolves
 * to undefined when the upstream failed: discovery then lists Tandem's resources alone.
 * Concurrent callers share one read.
 */
export function upstreamDiscovery(options: {
  get: UpstreamGet;
  now: () => number;
  onError: (message: string) => void;
  ttlMs?: number;
  timeoutMs?: number;
}): UpstreamDiscovery {
  const ttlMs = options.ttlMs ?? DISCOVERY_TTL_MS;
  const timeoutMs = options.timeoutMs ?? DISCOVERY_TIMEOUT_MS;
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();
  const read = async (version: CustomMetricsVersion): Promise<unknown> => {
    const path = `/apis/custom.metrics.k8s.io/${version}`;
    try {
      const answer = await options.get(path, {
        accept: 'application/json',
        timeoutMs,
      });
      if (answer.status !== 200)
        throw new Error(
          `HTTP ${answer.status}: ${answer.body.toString('utf8', 0, 300)}`,
        );
      return JSON.parse(answer.body.toString('utf8')) as unknown;
    } catch (error) {
      options.onError(
        `upstream discovery ${path} failed, listing Tandem's metrics alone: ${describeError(error)}`,
      );
      return undefined;
    }
  };
  return (version) => {
    const cached = cache.get(version);
    const now = options.now();
    if (cached !== undefined && now - cached.at < ttlMs) return cached.value;
    const value = read(version);
    cache.set(version, { at: now, value });
    return value;
  };
}
