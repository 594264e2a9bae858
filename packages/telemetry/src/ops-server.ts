import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { HealthReport } from './health.js';

export type HealthCheck = () => HealthReport | Promise<HealthReport>;

export interface OpsServerOptions {
  /** 0 picks a free port (see `OpsServer.port`). */
  readonly port: number;
  /** Defaults to all interfaces, as a pod's probes and scrapers need. */
  readonly host?: string;
  readonly registry: Registry;
  /** Liveness, served on /healthz and upstream's /health-check. */
  readonly health: HealthCheck;
  /** Readiness, served on /readyz. */
  readonly readiness: HealthCheck;
}

export interface OpsServer {
  /** The port actually bound. */
  readonly port: number;
  /** e.g. `http://127.0.0.1:8942`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (Prometheus text format), `/healthz` (also as `/health-check`, the
 * path upstream's manifests and chart probe) and `/readyz` (200 with
 * `{"status":"ok"}`, or 503 with `{"status":"unhealthy","reasons":[...]}`; a check that
 * throws counts as unhealthy), 404 for any other path, 405 for methods other than
 * GET/HEAD. Resolves once listening.
 */
export async function startOpsServer(
  options: OpsServerOptions,
): Promise<OpsServer> {
  const server = createServer((request, response) => {
    handle(options, request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        send(
          response,
          500,
          'text/plain; charset=utf-8',
          `${String(error)}\n`,
          request,
        );
      } else {
        response.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host =
    address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    port: address.port,
    url: `http://${host}:${address.port}`,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

async function handle(
  options: OpsServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const liveness = path === '/healthz' || path === '/health-check';
  const known = liveness || path === '/metrics' || path === '/readyz';
  if (!known) {
    send(response, 404, 'text/plain; charset=utf-8', 'not found\n', request);
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    send(
      response,
      405,
      'text/plain; charset=utf-8',
      'method not allowed\n',
      request,
    );
    return;
  }
  if (path === '/metrics') {
    const body = await options.registry.metrics();
    send(response, 200, options.registry.contentType, body, request);
    return;
  }
  const report = await runCheck(liveness ? options.health : options.readiness);
  const body = report.healthy
    ? { status: 'ok' }
    : { status: 'unhealthy', reasons: report.reasons };
  send(
    response,
    report.healthy ? 200 : 503,
    'application/json; charset=utf-8',
    `${JSON.stringify(body)}\n`,
    request,
  );
}

async function runCheck(check: HealthCheck): Promise<HealthReport> {
  try {
    return await check();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { healthy: false, reasons: [`check failed: ${message}`] };
  }
}

function send(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  request: IncomingMessage,
): void {
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}
