import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  matrixAnswer,
  sendJson,
  startTestServer,
  type TestServer,
} from '@tandem/prometheus-api/testing';
import { createLogger, Registry } from '@tandem/telemetry';
import {
  ClusterModel,
  historyQueries,
  recommenderMetrics,
} from '@tandem/recommender-core';
import {
  LABEL_NAMES,
  NS,
  selectorFor,
  vpaObject,
} from '@tandem/recommender-core/testing';
import {
  loadPrometheusHistory,
  type PrometheusSettings,
} from './load-prometheus-history.js';

const SETTINGS: Omit<PrometheusSettings, 'address'> = {
  ...LABEL_NAMES,
  insecure: false,
  cadvisorJobName: 'kubernetes-cadvisor',
  cpuMetric: 'container_cpu_usage_seconds_total',
  memoryMetric: 'container_memory_working_set_bytes',
  historyResolution: '5m',
  historyResolutionMs: 300_000,
  historyLengthMs: 6 * 3_600_000,
  podLabelsMetric: 'up{job="kubernetes-pods"}[6h]',
  queryTimeoutMs: 5000,
  username: '',
  password: '',
  bearerToken: '',
  bearerTokenFile: '',
};
const QUERIES = historyQueries(SETTINGS, NS);

const container = { namespace: NS, pod_name: 'web-1', name: 'app' };
const nowS = () => Math.floor(Date.now() / 1000);

/** Answers the three history queries as a Prometheus holding one container would. */
function prometheusAnswer(path: string, query: string | undefined) {
  const t = nowS() - 600;
  if (path === '/api/v1/query_range' && query === QUERIES.cpu)
    return matrixAnswer([
      {
        metric: container,
        values: [
          [t, '0.5'],
          [t + 300, '0.25'],
        ],
      },
    ]);
  if (path === '/api/v1/query_range' && query === QUERIES.memory)
    return matrixAnswer([{ metric: container, values: [[t, '104857600']] }]);
  if (path === '/api/v1/query' && query === QUERIES.podLabels)
    return matrixAnswer([
      {
        metric: {
          kubernetes_namespace: NS,
          kubernetes_pod_name: 'web-1',
          pod_label_app: 'web',
        },
        values: [[t, '1']],
      },
    ]);
  return undefined;
}

let server: TestServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true });
  dir = undefined;
});

function startUp() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    serviceName: 'test',
    serviceVersion: '0',
    env: {},
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  const model = new ClusterModel();
  model.upsertVpa(vpaObject('web'), selectorFor({ app: 'web' }));
  const metrics = recommenderMetrics(new Registry());
  const recovered = async () =>
    (await metrics.recoveredErrors.get()).values.map(({ labels, value }) => ({
      ...labels,
      value,
    }));
  return { context: { model, logger, metrics }, lines, recovered };
}

describe('loadPrometheusHistory', () => {
  it('runs the three queries over --history-length and replays the answers', async () => {
    server = await startTestServer((request, response) => {
      const answer = prometheusAnswer(request.path, request.params['query']);
      if (answer === undefined)
        sendJson(response, 400, {
          status: 'error',
          errorType: 'bad_data',
          error: 'unexpected query',
        });
      else sendJson(response, 200, answer);
    });
    dir = await mkdtemp(join(tmpdir(), 'prometheus-token-'));
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'from-file\n');
    const { context, lines, recovered } = startUp();

    const before = Date.now();
    await loadPrometheusHistory(
      context,
      {
        ...SETTINGS,
        address: server.url,
        bearerToken: 'from-flag',
        bearerTokenFile: tokenFile,
      },
      NS,
      {},
    );

    expect(server.requests.map((r) => [r.path, r.params['query']])).toEqual([
      ['/api/v1/query_range', QUERIES.cpu],
      ['/api/v1/query_range', QUERIES.memory],
      ['/api/v1/query', QUERIES.podLabels],
    ]);
    // The token file wins over the flag, trimmed, as upstream reads it.
    expect(
      server.requests.every(
        (r) => r.headers['authorization'] === 'Bearer from-file',
      ),
    ).toBe(true);
    const [cpu] = server.requests;
    const end = Number(cpu?.params['end']) * 1000;
    expect(end).toBeGreaterThanOrEqual(before);
    expect(Number(cpu?.params['start']) * 1000).toBe(
      end - SETTINGS.historyLengthMs,
    );
    expect(cpu?.params['step']).toBe('300');
    expect(server.requests[2]?.params['time']).toBe(cpu?.params['end']);

    expect(
      lines.find((line) => line['msg'] === 'history loaded from Prometheus'),
    ).toMatchObject({
      address: server.url,
      pods: 1,
      containers: 1,
      samples: 3,
      startMs: end - SETTINGS.historyLengthMs,
      endMs: end,
      stepMs: 300_000,
    });
    expect(
      context.model.aggregatesForVpa(`${NS}/web`).get('app')?.totalSamplesCount,
    ).toBe(2);
    expect(await recovered()).toEqual([]);
  });

  it('starts without history, warning and counting, when Prometheus fails', async () => {
    server = await startTestServer((_, response) =>
      sendJson(response, 503, {
        status: 'error',
        errorType: 'unavailable',
        error: 'TSDB not ready',
      }),
    );
    const { context, lines, recovered } = startUp();
    await loadPrometheusHistory(
      context,
      { ...SETTINGS, address: server.url },
      NS,
      {},
    );
    expect(lines.filter((line) => line['level'] === 'warn')).toEqual([
      expect.objectContaining({
        address: server.url,
        msg: `history not loaded from Prometheus at ${server.url}, starting without history: CPU usage query ${QUERIES.cpu}: ${server.url}/api/v1/query_range: HTTP 503, unavailable: TSDB not ready`,
      }),
    ]);
    expect(await recovered()).toEqual([
      { kind: 'prometheus-history', value: 1 },
    ]);
    expect(context.model.podKeys()).toEqual([]);
  });

  it('names the query whose answer is not a matrix', async () => {
    server = await startTestServer((request, response) =>
      sendJson(
        response,
        200,
        request.path === '/api/v1/query'
          ? { status: 'success', data: { resultType: 'vector', result: [] } }
          : matrixAnswer([]),
      ),
    );
    const { context, lines } = startUp();
    await loadPrometheusHistory(
      context,
      {
        ...SETTINGS,
        address: server.url,
        podLabelsMetric: 'up{job="kubernetes-pods"}',
      },
      NS,
      {},
    );
    expect(lines.find((line) => line['level'] === 'warn')?.['msg']).toBe(
      `history not loaded from Prometheus at ${server.url}, starting without history: pod labels query up{job="kubernetes-pods"}: expected a matrix result, got "vector" (an instant query needs a range selector such as [1h])`,
    );
  });

  it('starts without history when the token file cannot be read, asking Prometheus nothing', async () => {
    server = await startTestServer((_, response) =>
      sendJson(response, 200, matrixAnswer([])),
    );
    const { context, lines, recovered } = startUp();
    await loadPrometheusHistory(
      context,
      {
        ...SETTINGS,
        address: server.url,
        bearerTokenFile: '/nonexistent/token',
      },
      NS,
      {},
    );
    expect(lines.find((line) => line['level'] === 'warn')?.['msg']).toMatch(
      /starting without history: cannot read --prometheus-bearer-token-file \/nonexistent\/token: .*ENOENT: no such file or directory/,
    );
    expect(server.requests).toEqual([]);
    expect(await recovered()).toEqual([
      { kind: 'prometheus-history', value: 1 },
    ]);
  });
});
