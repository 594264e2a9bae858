import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConnection } from '@tandem/kube';

/** One request as the fake API server saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  /** The parsed JSON body, if any. */
  readonly body: unknown;
}

export interface FakeApiServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  /** A connection to this server, with a bearer token of its own. */
  readonly connection: KubeConnection;
  close(): Promise<void>;
}

/**
 * A plain-HTTP stand-in for the API server on a free local port; `answer` writes each
 * response, or keeps it open (a watch).
 */
export async function startFakeApiServer(
  answer: (request: SeenRequest, response: ServerResponse) => void,
): Promise<FakeApiServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((incoming, response) => {
    let text = '';
    incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://localhost');
      const seen: SeenRequest = {
        method: incoming.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
      requests.push(seen);
      answer(seen, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const connection: KubeConnection = {
    server: url,
    // Spelled as client-node's kubeconfig writes it, which the credentials must read too.
    requestOptions: () =>
      Promise.resolve({ headers: { Authorization: 'Bearer adapter-token' } }),
  };
  return {
    url,
    requests,
    connection,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** A Status failure body, as the API server sends it. */
export function apiStatus(code: number, reason: string, message: string) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
}
