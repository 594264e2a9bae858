import {
  matrixAnswer,
  sendJson,
  startTestServer,
  type TestServer,
} from '@tandem/prometheus-api/testing';
import {
  prometheusClient,
  type PrometheusRequestSeen,
} from './prometheus-client.js';

const RANGE = {
  startMs: 1_700_000_000_000,
  endMs: 1_700_021_600_500,
  stepMs: 300_000,
};

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function clientFor(
  address: string,
  options: { authorization?: string; queryTimeoutMs?: number } = {},
) {
  const seen: PrometheusRequestSeen[] = [];
  const client = prometheusClient({
    address,
    insecure: false,
    queryTimeoutMs: options.queryTimeoutMs ?? 5000,
    timeoutFlag: '--prometheus-query-timeout',
    authorization: options.authorization,
    onRequest: (request) => seen.push(request),
  });
  /** The requests reported as `code method → count`, and how many had a duration. */
  const counted = async () => {
    const requests: Record<string, number> = {};
    for (const { code, method } of seen)
      requests[`${code} ${method}`] = (requests[`${code} ${method}`] ?? 0) + 1;
    return {
      requests,
      durations: seen.filter(
        ({ seconds }) => Number.isFinite(seconds) && seconds >= 0,
      ).length,
    };
  };
  return { client, counted };
}

describe('prometheusClient against a real HTTP server', () => {
  it('POSTs a range query as a form under the address path, with the Authorization header', async () => {
    server = await startTestServer((_, response) =>
      sendJson(response, 200, matrixAnswer([])),
    );
    const { client, counted } = clientFor(`${server.url}/prometheus/`, {
      authorization: 'Bearer t0ken',
    });
    expect(await client.queryRange('up', RANGE)).toEqual({
      resultType: 'matrix',
      result: [],
    });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/prometheus/api/v1/query_range',
      params: {
        query: 'up',
        start: '1700000000',
        end: '1700021600.5',
        step: '300',
      },
    });
    expect(request?.headers['authorization']).toBe('Bearer t0ken');
    expect(request?.headers['content-type']).toBe(
      'application/x-www-form-urlencoded',
    );
    expect(await counted()).toEqual({
      requests: { '200 post': 1 },
      durations: 1,
    });
  });

  it('sends an instant query with its time and no Authorization header without credentials', async () => {
    server = await startTestServer((_, response) =>
      sendJson(response, 200, matrixAnswer([])),
    );
    const { client } = clientFor(server.url);
    await client.query('up{job="kubernetes-pods"}[8d]', 1_700_000_000_250);
    expect(server.requests[0]).toMatchObject({
      path: '/api/v1/query',
      params: { query: 'up{job="kubernetes-pods"}[8d]', time: '1700000000.25' },
    });
    expect(server.requests[0]?.headers['authorization']).toBeUndefined();
  });

  it('falls back to GET when POST is not allowed, counting both requests', async () => {
    server = await startTestServer((request, response) =>
      request.method === 'POST'
        ? sendJson(response, 405, { message: 'method not allowed' })
        : sendJson(response, 200, matrixAnswer([])),
    );
    const { client, counted } = clientFor(server.url, {
      authorization: 'Basic eDp5',
    });
    await client.query('up[1h]', 1_700_000_000_000);
    expect(
      server.requests.map(({ method, params, headers }) => ({
        method,
        params,
        authorization: headers['authorization'],
      })),
    ).toEqual([
      {
        method: 'POST',
        params: { query: 'up[1h]', time: '1700000000' },
        authorization: 'Basic eDp5',
      },
      {
        method: 'GET',
        params: { query: 'up[1h]', time: '1700000000' },
        authorization: 'Basic eDp5',
      },
    ]);
    expect(await counted()).toEqual({
      requests: { '405 post': 1, '200 get': 1 },
      durations: 2,
    });
  });

  it('reports a Prometheus error answer with the URL, status, type and message', async () => {
    server = await startTestServer((_, response) =>
      sendJson(response, 422, {
        status: 'error',
        errorType: 'execution',
        error: 'query processing would load too many samples into memory',
      }),
    );
    const { client, counted } = clientFor(server.url);
    await expect(client.queryRange('up', RANGE)).rejects.toThrow(
      `${server.url}/api/v1/query_range: HTTP 422, execution: query processing would load too many samples into memory`,
    );
    expect((await counted()).requests).toEqual({ '422 post': 1 });
  });

  it('reports a non-JSON answer of a proxy', async () => {
    server = await startTestServer((_, response) => {
      response.writeHead(503, { 'content-type': 'text/plain' });
      response.end('upstream connect error');
    });
    const { client } = clientFor(server.url);
    await expect(client.queryRange('up', RANGE)).rejects.toThrow(
      `${server.url}/api/v1/query_range: HTTP 503, not a Prometheus API answer: upstream connect error`,
    );
  });

  it('gives up after --prometheus-query-timeout and counts an error', async () => {
    // The server takes the request and never answers.
    server = await startTestServer(() => undefined);
    const { client, counted } = clientFor(server.url, { queryTimeoutMs: 200 });
    await expect(client.queryRange('up', RANGE)).rejects.toThrow(
      `${server.url}/api/v1/query_range: no answer within --prometheus-query-timeout (200 ms)`,
    );
    expect(await counted()).toEqual({
      requests: { 'error post': 1 },
      durations: 1,
    });
  });

  it('reports a refused connection and counts an error', async () => {
    server = await startTestServer(() => undefined);
    const address = server.url;
    await server.close();
    server = undefined;
    const { client, counted } = clientFor(address);
    await expect(client.query('up[1h]', 0)).rejects.toThrow(
      `${address}/api/v1/query: connect ECONNREFUSED ${address.slice('http://'.length)}`,
    );
    expect((await counted()).requests).toEqual({ 'error post': 1 });
  });
});
