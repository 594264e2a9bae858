import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the test server saw it; form parameters from the body or the query string. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly params: Record<string, string>;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 and a free port, for tests of code that talks to
 * Prometheus; `answer` writes each response (or never does, to test timeouts).
 */
export async function startTestServer(
  answer: (request: SeenRequest, response: ServerResponse) => void,
): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((incoming, response) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://localhost');
      const params = new URLSearchParams(
        incoming.method === 'POST' ? body : url.search,
      );
      const seen: SeenRequest = {
        method: incoming.method ?? '',
        path: url.pathname,
        headers: incoming.headers,
        params: Object.fromEntries(params),
      };
      requests.push(seen);
      answer(seen, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
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

/** A success answer with a vector result (what instant queries of series return). */
export const vectorAnswer = (result: unknown[]) => ({
  status: 'success',
  data: { resultType: 'vector', result },
});

/** A success answer with a matrix result. */
export const matrixAnswer = (result: unknown[]) => ({
  status: 'success',
  data: { resultType: 'matrix', result },
});
