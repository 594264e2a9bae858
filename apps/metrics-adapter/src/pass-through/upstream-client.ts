import { Agent, request, type RequestOptions } from 'node:https';
import { describeError, type KubeConnection } from '@tandem/kube';

/** What the upstream answered, passed back to the caller as it came. */
export interface UpstreamAnswer {
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

/** The upstream could not be asked or did not answer in time. */
export class UpstreamUnavailable extends Error {}

/**
 * One GET of the upstream provider. `timeoutMs` bounds the whole exchange, so a hung
 * provider costs a caller at most that long.
 */
export type UpstreamGet = (
  pathAndQuery: string,
  options: { accept: string | undefined; timeoutMs: number },
) => Promise<UpstreamAnswer>;

/** The adapter's own identity as its connection gives it: a bearer token or a client certificate. */
export type Credentials = () => Promise<
  Pick<RequestOptions, 'headers' | 'cert' | 'key'>
>;

/**
 * The adapter's credentials from its API server connection (in-cluster: its ServiceAccount
 * token, read again per request since the kubelet rotates it). Only the identity is taken:
 * the cluster's CA and proxy settings are the API server's, not the upstream's.
 */
export function connectionCredentials(connection: KubeConnection): Credentials {
  return async () => {
    const { headers, cert, key } = await connection.requestOptions();
    // Header names are case-insensitive; client-node's kubeconfig writes `Authorization`.
    const authorization = Object.entries(headers ?? {}).find(
      ([name]) => name.toLowerCase() === 'authorization',
    )?.[1];
    return {
      headers:
        typeof authorization === 'string' ? { authorization } : undefined,
      cert,
      key,
    };
  };
}

/**
 * GETs of `url` (the `--upstream-provider` origin) verified against `caPem` only, with
 * keep-alive connections: the HPA controller reads every 15 s per HPA.
 */
export function upstreamGet(options: {
  url: string;
  caPem: string;
  credentials: Credentials;
}): UpstreamGet {
  const agent = new Agent({ keepAlive: true, ca: options.caPem });
  return async (pathAndQuery, { accept, timeoutMs }) => {
    const target = new URL(pathAndQuery, options.url);
    const deadline = AbortSignal.timeout(timeoutMs);
    let identity;
    try {
      identity = await options.credentials();
    } catch (error) {
      throw new UpstreamUnavailable(
        `the adapter's own credentials could not be read: ${describeError(error)}`,
      );
    }
    return new Promise<UpstreamAnswer>((resolve, reject) => {
      const outgoing = request(
        target,
        {
          agent,
          ca: options.caPem,
          rejectUnauthorized: true,
          cert: identity.cert,
          key: identity.key,
          signal: deadline,
          headers: {
            ...identity.headers,
            accept: accept ?? 'application/json',
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 502,
              contentType: response.headers['content-type'],
              body: Buffer.concat(chunks),
            }),
          );
          response.on('error', fail);
        },
      );
      function fail(error: unknown) {
        reject(
          new UpstreamUnavailable(
            deadline.aborted
              ? `no answer within ${timeoutMs / 1000}s`
              : describeError(error),
          ),
        );
      }
      outgoing.on('error', fail).end();
    });
  };
}
