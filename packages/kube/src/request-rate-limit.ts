import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { TokenBucket } from './token-bucket.js';

const CLIENT_GO_DEFAULT_QPS = 5;
const CLIENT_GO_DEFAULT_BURST = 10;

/** Where the limiter reads the time and waits: the real ones but in tests. */
export interface RateLimitClock {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

const REAL_CLOCK: RateLimitClock = { now: Date.now, sleep };

/**
 * client-go's client-side limit (`--kube-api-qps`, `--kube-api-burst`) on every request made
 * with this KubeConfig: API clients (`makeApiClient`), watches and raw GETs all authenticate
 * through one of the two hooks wrapped here, once per request, so each request waits for a
 * token first. The values mean what they mean in client-go's rest.Config: a negative rate
 * is no limit, and 0 is client-go's default (5 per second, burst 10).
 */
export function limitRequestRate(
  kubeConfig: KubeConfig,
  qps: number,
  burst: number,
  clock: RateLimitClock = REAL_CLOCK,
): void {
  if (qps < 0) return;
  const bucket = new TokenBucket(
    qps === 0 ? CLIENT_GO_DEFAULT_QPS : qps,
    burst === 0 ? CLIENT_GO_DEFAULT_BURST : burst,
    clock.now,
  );
  const token = async () => {
    const waitMs = bucket.reserve() ?? 0;
    if (waitMs > 0) await clock.sleep(waitMs);
  };
  const authenticate = kubeConfig.applySecurityAuthentication.bind(kubeConfig);
  const httpsOptions = kubeConfig.applyToHTTPSOptions.bind(kubeConfig);
  kubeConfig.applySecurityAuthentication = async (context) => {
    await token();
    return authenticate(context);
  };
  kubeConfig.applyToHTTPSOptions = async (options) => {
    await token();
    return httpsOptions(options);
  };
}
