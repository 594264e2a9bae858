import { parseNumberIn, parsePositiveInteger } from './flag-values.js';

/** `--kube-api-qps` / `--kube-api-burst`: client-go's client-side limit on API requests. */
export interface KubeApiRateFlags {
  /** Requests a second; negative: no limit, as client-go's `rest.Config`. */
  kubeApiQps: number;
  kubeApiBurst: number;
}

/** Both flags' values, as the updater and the webhook take them from `parseArgs`. */
export function parseKubeApiRate(qps: string, burst: string): KubeApiRateFlags {
  return {
    kubeApiQps: parseNumberIn(qps, 'kube-api-qps', -Infinity),
    kubeApiBurst: parsePositiveInteger(burst, 'kube-api-burst'),
  };
}
