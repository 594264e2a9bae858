import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * How to reach the API server: its URL and, per request, the TLS material and credentials
 * to send. Everything in `@tandem/kube` that makes its own HTTP requests (lists, watches,
 * GETs, writes) takes one, so an app that never builds a generated client never loads
 * `@kubernetes/client-node` (ADR 0027).
 */
export interface KubeConnection {
  /** The server's base URL without a trailing slash; it may carry a path prefix. */
  readonly server: string;
  /**
   * Options for one request: CA, client certificate, `authorization` header. Asked for
   * each request, so rotated tokens and rate limits (`limitRequestRate`) apply.
   */
  requestOptions(): Promise<RequestOptions>;
}

/**
 * A connection that authenticates through a client-node KubeConfig, for the apps that also
 * use its generated clients (one loaded kubeconfig, one rate limit for both).
 */
export function kubeConnectionOf(kubeConfig: KubeConfig): KubeConnection {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (server === undefined) throw new Error('the kubeconfig names no cluster');
  return {
    server: server.replace(/\/+$/, ''),
    async requestOptions() {
      const options: RequestOptions = {};
      await kubeConfig.applyToHTTPSOptions(options);
      return options;
    },
  };
}

/** A connection to a plain-HTTP stand-in API server, for tests and benchmarks. */
export function plainConnection(server: string): KubeConnection {
  return {
    server: server.replace(/\/+$/, ''),
    requestOptions: () => Promise.resolve({}),
  };
}
