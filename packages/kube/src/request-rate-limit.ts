import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { TokenBucket } from './token-bucket.js';

/**
 * client-go's client-side limit (`--kube-api-qps`, `--kube-api-burst`) on every request made
 * with this KubeConfig: API clients (`makeApiClient`), watches and raw GETs all authenticate
 * through one of the two hooks wrapped here, once per request, so each request waits for a
 * token first. A rate of 0 or less means no limit, as in client-go.
 */
export function limitRequestRate(
  kubeConfig: KubeConfig,
  qps: number,
  burst: number,
): void {
  const bucket = new TokenBucket(qps, burst);
  if (bucket.unlimited) return;
  const token = async () => {
    const waitMs = bucket.reserve() ?? 0;
    if (waitMs > 0) await sleep(waitMs);
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
