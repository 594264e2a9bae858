import {
  sendJson,
  startTestServer,
  type TestServer,
  vectorAnswer,
} from '@tandem/prometheus-api/testing';
import { namespaceQuery, prometheusUsage } from './prometheus-usage.js';

const CPU_QUERY =
  'sum by (pod, container) (rate(cpu_seconds_total{namespace="<<namespace>>"}[2m]))';
const MEMORY_QUERY =
  'sum by (pod, container) (memory_bytes{namespace="<<namespace>>"})';

const sample = (pod: string, container: string, value: string) => ({
  metric: { pod, container },
  value: [1_700_000_000.123, value],
});

const isCpu = (query: string | undefined) =>
  query?.includes('cpu_seconds_total') ?? false;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function reader(url: string, timeoutMs = 2000) {
  return prometheusUsage({
    url,
    cpuQuery: CPU_QUERY,
    memoryQuery: MEMORY_QUERY,
    timeoutMs,
  });
}

describe('prometheusUsage', () => {
  it('combines the CPU and memory vectors per pod and container', async () => {
    server = await startTestServer((request, response) =>
      sendJson(
        response,
        200,
        isCpu(request.params['query'])
          ? vectorAnswer([
              sample('web-1', 'app', '0.25'),
              sample('web-1', 'sidecar', '0.005'),
              sample('web-2', 'app', '1.5'),
              // Only CPU: left out, and so is web-3, which has nothing else.
              sample('web-3', 'app', '0.1'),
              // Only in the CPU series of web-2: left out, web-2's app kept.
              sample('web-2', 'warming-up', '0.3'),
              // A value Prometheus could not compute is missing data too.
              sample('web-4', 'app', 'NaN'),
            ])
          : vectorAnswer([
              sample('web-2', 'app', '2147483648'),
              sample('web-1', 'sidecar', '1e6'),
              sample('web-1', 'app', '134217728'),
              // Only memory: left out.
              sample('web-5', 'app', '1000'),
              sample('web-4', 'app', '1000'),
            ]),
      ),
    );

    const usage = await reader(server.url)('shop');

    expect(usage).toEqual(
      new Map([
        [
          'web-1',
          [
            { name: 'app', cpuCores: 0.25, memoryBytes: 134217728 },
            { name: 'sidecar', cpuCores: 0.005, memoryBytes: 1e6 },
          ],
        ],
        ['web-2', [{ name: 'app', cpuCores: 1.5, memoryBytes: 2147483648 }]],
      ]),
    );
    expect(server.requests.map(({ method, path }) => [method, path])).toEqual([
      ['GET', '/api/v1/query'],
      ['GET', '/api/v1/query'],
    ]);
  });

  it('answers an empty map when no series match', async () => {
    server = await startTestServer((_request, response) =>
      sendJson(response, 200, vectorAnswer([])),
    );
    expect(await reader(server.url)('empty')).toEqual(new Map());
  });

  it('sends both queries with the namespace substituted, under the URL path prefix', async () => {
    server = await startTestServer((_request, response) =>
      sendJson(response, 200, vectorAnswer([])),
    );

    await reader(`${server.url}/prometheus/`)('shop');

    expect(server.requests.map(({ path }) => path)).toEqual([
      '/prometheus/api/v1/query',
      '/prometheus/api/v1/query',
    ]);
    expect(server.requests.map(({ params }) => params['query']).sort()).toEqual(
      [
        'sum by (pod, container) (memory_bytes{namespace="shop"})',
        'sum by (pod, container) (rate(cpu_seconds_total{namespace="shop"}[2m]))',
      ],
    );
  });

  it('escapes the namespace for a PromQL string and replaces every placeholder', () => {
    expect(
      namespaceQuery(
        'a{namespace="<<namespace>>"} / b{ns="<<namespace>>"}',
        'we"ird\\ns$&\n',
      ),
    ).toBe('a{namespace="we\\"ird\\\\ns$&\\n"} / b{ns="we\\"ird\\\\ns$&\\n"}');
  });

  it('rejects a Prometheus error answer with the URL, the query and the error', async () => {
    server = await startTestServer((request, response) =>
      isCpu(request.params['query'])
        ? sendJson(response, 200, vectorAnswer([]))
        : sendJson(response, 422, {
            status: 'error',
            errorType: 'execution',
            error: 'query processing would load too many samples into memory',
          }),
    );

    await expect(reader(server.url)('shop')).rejects.toThrow(
      `Prometheus ${server.url}/api/v1/query: memory query: HTTP 422, execution: query processing would load too many samples into memory`,
    );
  });

  it('rejects a 500 with an HTML body with the URL, the status and an excerpt', async () => {
    server = await startTestServer((request, response) => {
      if (!isCpu(request.params['query']))
        return sendJson(response, 200, vectorAnswer([]));
      response.writeHead(500, { 'content-type': 'text/html' });
      response.end('<html>\n<body>Internal Server Error</body>\n</html>');
    });

    await expect(reader(server.url)('shop')).rejects.toThrow(
      `Prometheus ${server.url}/api/v1/query: cpu query: HTTP 500, not a Prometheus API answer: <html> <body>Internal Server Error</body> </html>`,
    );
  });

  it('rejects an answer that is not a vector of pods and containers', async () => {
    server = await startTestServer((request, response) =>
      sendJson(
        response,
        200,
        isCpu(request.params['query'])
          ? vectorAnswer([{ metric: { pod: 'web-1' }, value: [1, '0.5'] }])
          : vectorAnswer([]),
      ),
    );

    await expect(reader(server.url)('shop')).rejects.toThrow(
      `Prometheus ${server.url}/api/v1/query: cpu query: a series without "pod" and "container" labels ({"pod":"web-1"}); the query must aggregate by (pod, container)`,
    );
  });

  it('rejects a query that gives several series for one container', async () => {
    server = await startTestServer((request, response) =>
      sendJson(
        response,
        200,
        isCpu(request.params['query'])
          ? vectorAnswer([])
          : vectorAnswer([
              {
                metric: { pod: 'web-1', container: 'app', id: 'a' },
                value: [1, '1'],
              },
              {
                metric: { pod: 'web-1', container: 'app', id: 'b' },
                value: [1, '2'],
              },
            ]),
      ),
    );

    await expect(reader(server.url)('shop')).rejects.toThrow(
      'memory query: several series for pod web-1 container app; the query must aggregate by (pod, container)',
    );
  });

  it('rejects when Prometheus does not answer within the timeout', async () => {
    server = await startTestServer(() => undefined);

    const started = performance.now();
    await expect(reader(server.url, 150)('shop')).rejects.toThrow(
      `Prometheus ${server.url}/api/v1/query: no answer within --prometheus-timeout (150 ms)`,
    );
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('rejects when the connection is refused', async () => {
    const closed = await startTestServer(() => undefined);
    await closed.close();

    await expect(reader(closed.url)('shop')).rejects.toThrow(
      `Prometheus ${closed.url}/api/v1/query: connect ECONNREFUSED ${closed.url.replace('http://', '')}`,
    );
  });
});
