import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/** One request as the stand-in API server saw it. */
export interface Seen {
  method: string;
  path: string;
  contentType: string | undefined;
  body: unknown;
}

/** A stand-in API server: records each request, answers with `respond`'s status and body. */
export async function standInApiServer(
  respond: (seen: Seen) => { status: number; body?: unknown },
): Promise<{
  server: Server;
  url: string;
  seen: Seen[];
  /** `performance.now()` at each request's arrival, in arrival order. */
  arrivalsMs: number[];
}> {
  const seen: Seen[] = [];
  const arrivalsMs: number[] = [];
  const server = createServer((request, response) => {
    arrivalsMs.push(performance.now());
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      const one: Seen = {
        method: request.method ?? '',
        path: request.url ?? '',
        contentType: request.headers['content-type'],
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
      };
      seen.push(one);
      const { status, body = {} } = respond(one);
      response.statusCode = status;
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify(
          status < 300
            ? body
            : { kind: 'Status', code: status, message: `HTTP ${status}` },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, seen, arrivalsMs };
}

/** A kubeconfig for the stand-in server, with a bearer token. */
export function kubeConfigFor(server: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}
