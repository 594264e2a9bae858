import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { apiStatusOf } from '../api-errors.js';
import type { KubeConnection } from './kube-connection.js';

export type GetJson = (path: string) => Promise<unknown>;

/** Sends a JSON body with `method` and answers the parsed response. */
export type SendJson = (
  method: 'POST' | 'PUT' | 'PATCH',
  path: string,
  body: unknown,
  contentType?: string,
) => Promise<unknown>;

const REQUEST_TIMEOUT_MS = 30_000;

export interface KubeRequest {
  method: string;
  /** The API path with its query, appended to the server URL. */
  path: string;
  body?: string;
  contentType?: string;
  /** Default 30 s; 0: none (a watch, ended by its own `timeoutSeconds`). */
  timeoutMs?: number;
}

/**
 * One request to the API server; resolves with the response as it starts to arrive, so a
 * watch can read it as a stream. Rejects on connection errors and on the timeout.
 */
export async function openKubeRequest(
  connection: KubeConnection,
  {
    method,
    path,
    body,
    contentType,
    timeoutMs = REQUEST_TIMEOUT_MS,
  }: KubeRequest,
): Promise<{ response: IncomingMessage; abort: () => void }> {
  // Appended, not resolved: a server URL may carry a path prefix (API proxies do).
  const url = new URL(`${connection.server}${path}`);
  const options = await connection.requestOptions();
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(options.headers as Record<string, string> | undefined),
  };
  if (body !== undefined) {
    headers['content-type'] = contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(url, { ...options, method, headers }, (response) =>
      resolve({ response, abort: () => outgoing.destroy() }),
    );
    if (timeoutMs > 0)
      outgoing.setTimeout(timeoutMs, () =>
        outgoing.destroy(
          new Error(`${method} ${path}: no answer in ${timeoutMs / 1000}s`),
        ),
      );
    outgoing.on('error', reject).end(body);
  });
}

/** One request, its body read whole; a status outside 2xx rejects (`kubeRequestError`). */
export async function kubeRequest(
  connection: KubeConnection,
  request: KubeRequest,
): Promise<string> {
  const { response } = await openKubeRequest(connection, request);
  const text = await new Promise<string>((resolve, reject) => {
    let received = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (received += chunk));
    response.on('end', () => resolve(received));
    response.on('error', reject);
  });
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return text;
  throw kubeRequestError(request, status, text);
}

/**
 * A refused request as an error: the API server's Status message, the status as `code` and
 * the raw body as `body`, as client-node's errors carry them, so `httpStatusOf` and
 * `describeError` read both.
 */
export function kubeRequestError(
  request: Pick<KubeRequest, 'method' | 'path'>,
  status: number,
  body: string,
): Error {
  return Object.assign(
    new Error(
      `${request.method} ${request.path}: ${apiStatusOf(body)?.message ?? `HTTP ${status}`}`,
    ),
    { code: status, body },
  );
}

/**
 * A GET of any API path, parsed as JSON: discovery documents, collections and subresources
 * of kinds only known at run time, and every read of an app that has no generated client.
 */
export function kubeGetJson(connection: KubeConnection): GetJson {
  return async (path) =>
    JSON.parse(
      await kubeRequest(connection, { method: 'GET', path }),
    ) as unknown;
}

/** Writes with a JSON body (creates, replaces, reviews, patches), the answer parsed. */
export function kubeSendJson(connection: KubeConnection): SendJson {
  return async (method, path, body, contentType) =>
    JSON.parse(
      await kubeRequest(connection, {
        method,
        path,
        body: JSON.stringify(body),
        contentType,
      }),
    ) as unknown;
}
