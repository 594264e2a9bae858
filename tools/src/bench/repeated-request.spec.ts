import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  createCertificateAuthority,
  issueServingCertificate,
} from '@tandem/serving';
import {
  answerOf,
  closedLoopLoad,
  fixedRateLoad,
  type LoadRequest,
} from './fixed-rate-load.js';
import { RepeatedRequest, type Outcome } from './repeated-request.js';

/** Echoes the body's length and the query; `?status=N` answers N, `?chunked` streams. */
const handler: Parameters<typeof createHttpServer>[1] = (request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const url = new URL(request.url ?? '/', 'http://x');
    const body = JSON.stringify({
      method: request.method,
      path: url.pathname,
      bodyBytes: Buffer.concat(chunks).length,
      contentType: request.headers['content-type'],
      // Large enough to span several TLS records and reads.
      padding: 'x'.repeat(Number(url.searchParams.get('pad') ?? 0)),
    });
    const status = Number(url.searchParams.get('status') ?? 200);
    if (url.searchParams.has('chunked')) {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.write(body.slice(0, 5));
      response.end(body.slice(5));
      return;
    }
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
};

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const ca = createCertificateAuthority();
const serving = issueServingCertificate(ca, {
  dnsNames: [],
  ipAddresses: ['127.0.0.1'],
});

describe('the load generator against real HTTP and HTTPS servers', () => {
  let http: Server;
  let https: Server;
  let httpUrl: string;
  let httpsUrl: string;
  const connections: Set<unknown> = new Set();

  beforeAll(async () => {
    http = createHttpServer(handler);
    https = createHttpsServer(
      { cert: serving.certPem, key: serving.keyPem },
      handler,
    );
    // Idle keep-alive connections are closed quickly, as a server may at any time.
    https.keepAliveTimeout = 50;
    https.on('secureConnection', (socket) => connections.add(socket));
    httpUrl = `http://127.0.0.1:${await listening(http)}`;
    httpsUrl = `https://127.0.0.1:${await listening(https)}`;
  });
  afterAll(async () => {
    for (const server of [http, https]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  const post = (url: string): LoadRequest => ({
    url,
    body: '{"hello":"world"}',
    headers: { 'content-type': 'application/json' },
    ca: ca.certPem,
    connections: 4,
  });

  it('reads whole answers over TLS and plain TCP, however they arrive', async () => {
    for (const url of [`${httpsUrl}/a?pad=200000`, `${httpUrl}/a?pad=3`]) {
      const answer = JSON.parse(await answerOf(post(url))) as Record<
        string,
        unknown
      >;
      expect(answer).toMatchObject({
        method: 'POST',
        path: '/a',
        bodyBytes: 17,
        contentType: 'application/json',
      });
    }
    const get = JSON.parse(
      await answerOf({ ...post(`${httpsUrl}/g`), method: 'GET' }),
    ) as Record<string, unknown>;
    expect(get).toMatchObject({ method: 'GET', bodyBytes: 0 });
  });

  it('sends every request of a fixed-rate load on at most its connections', async () => {
    connections.clear();
    const result = await fixedRateLoad({
      ...post(`${httpsUrl}/?pad=20000`),
      rate: 400,
      durationMs: 500,
    });
    expect(result.failures).toBe(0);
    expect(result.latenciesMs).toHaveLength(200);
    expect(connections.size).toBeGreaterThan(0);
    expect(connections.size).toBeLessThanOrEqual(4);
    // Sorted, and counted from when each was due.
    expect([...result.latenciesMs]).toEqual(
      [...result.latenciesMs].sort((a, b) => a - b),
    );
    expect(result.latenciesMs[0]).toBeGreaterThan(0);
  });

  it('survives the server closing idle connections between requests', async () => {
    const result = await fixedRateLoad({
      ...post(httpsUrl),
      rate: 10,
      durationMs: 600,
    });
    expect(result.failures).toBe(0);
    expect(result.latenciesMs).toHaveLength(6);
  });

  it('counts answers other than 200 as failures', async () => {
    const result = await closedLoopLoad({
      ...post(`${httpsUrl}/?status=503`),
      durationMs: 200,
    });
    expect(result.latenciesMs).toHaveLength(0);
    expect(result.failures).toBeGreaterThan(0);
  });

  it('ends a chunked answer, a refused connection and a bad certificate with an error', async () => {
    const outcome = (request: LoadRequest) =>
      new Promise<Outcome>((resolve) => {
        const requests = new RepeatedRequest(request, (_, result) => {
          requests.close();
          resolve(result);
        });
        requests.send(0);
      });
    const chunked = await outcome(post(`${httpsUrl}/?chunked`));
    expect(chunked.status).toBeUndefined();
    expect(String(chunked.status ?? chunked.error)).toMatch(
      /without a status line or a Content-Length/,
    );
    const spare = createHttpServer();
    const closedPort = await listening(spare);
    await new Promise((resolve) => spare.close(resolve));
    const refused = await outcome(post(`http://127.0.0.1:${closedPort}/`));
    expect(refused.status).toBeUndefined();
    const untrusted = await outcome({ ...post(httpsUrl), ca: undefined });
    expect(String(untrusted.status ?? untrusted.error)).toMatch(
      /self-signed|unable to verify|certificate/i,
    );
  });
});
