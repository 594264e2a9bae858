import { request, type RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

/** Any answer, 2xx or not: the status, the text, and the text parsed as JSON when it is JSON. */
export interface RawResponse {
  status: number;
  text: string;
  body: unknown;
}

const TIMEOUT_MS = 30_000;

/**
 * An HTTPS GET that resolves with whatever the server answered, so a test can check a 401,
 * 403 or 503 and its Status body (the generated clients throw on those, and have no call
 * for a custom metrics path such as `.../namespaces/<ns>/pods/<any pod>/<metric>`).
 */
export function httpsGet(
  url: URL | string,
  options: RequestOptions = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        ...options,
        headers: { accept: 'application/json', ...options.headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: response.statusCode ?? 0, text, body });
        });
        response.on('error', reject);
      },
    );
    outgoing.setTimeout(TIMEOUT_MS, () =>
      outgoing.destroy(
        new Error(`GET ${String(url)}: no answer in ${TIMEOUT_MS / 1000}s`),
      ),
    );
    outgoing.on('error', reject).end();
  });
}

/** A GET of an API path through the kube-apiserver as `config`'s user (any answer). */
export async function apiServerGet(
  config: KubeConfig,
  path: string,
): Promise<RawResponse> {
  const server = config.getCurrentCluster()?.server;
  if (server === undefined) throw new Error('the kubeconfig names no cluster');
  const options: RequestOptions = {};
  await config.applyToHTTPSOptions(options);
  return httpsGet(new URL(`${server.replace(/\/+$/, '')}${path}`), options);
}

/** The cluster of `config` (server and CA), with a bearer token as the only credential. */
export function tokenKubeConfig(config: KubeConfig, token: string): KubeConfig {
  const cluster = config.getCurrentCluster();
  if (cluster === null) throw new Error('the kubeconfig names no cluster');
  const tokenConfig = new KubeConfig();
  tokenConfig.loadFromClusterAndUser(cluster, { name: 'token-user', token });
  return tokenConfig;
}

/** One line for a failure message: the status and the start of the body. */
export function describeResponse(response: RawResponse): string {
  return `HTTP ${response.status}: ${response.text.slice(0, 400)}`;
}
