import { Counter } from 'prom-client';
import { healthy, unhealthy, type HealthReport } from './health.js';
import { createRegistry } from './metrics.js';
import { startOpsServer, type OpsServer } from './ops-server.js';

describe('startOpsServer over real HTTP', () => {
  let server: OpsServer;
  let health: HealthReport = healthy;
  let readiness: () => HealthReport = () => healthy;

  beforeAll(async () => {
    const registry = createRegistry();
    const counter = new Counter({
      name: 'vpa_recommender_metric_server_responses',
      help: 'Count of responses to queries to metrics server',
      labelNames: ['is_error', 'client_name'],
      registers: [registry],
    });
    counter.inc({ is_error: 'false', client_name: 'metrics.k8s.io' }, 2);
    server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      health: () => health,
      readiness: () => readiness(),
    });
  });

  afterAll(() => server.close());

  beforeEach(() => {
    health = healthy;
    readiness = () => healthy;
  });

  it('serves /metrics in the Prometheus text format, unprefixed, with Node defaults', async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(
      'text/plain; version=0.0.4; charset=utf-8',
    );
    const body = await response.text();
    expect(body).toContain(
      '# TYPE vpa_recommender_metric_server_responses counter',
    );
    expect(body).toContain(
      'vpa_recommender_metric_server_responses{is_error="false",client_name="metrics.k8s.io"} 2',
    );
    expect(body).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(body).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it('answers /healthz 200 when healthy and 503 with the reasons otherwise', async () => {
    const ok = await fetch(`${server.url}/healthz`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe(
      'application/json; charset=utf-8',
    );
    expect(await ok.json()).toEqual({ status: 'ok' });
    // Upstream's probe path answers the same.
    expect((await fetch(`${server.url}/health-check`)).status).toBe(200);

    health = unhealthy(
      'last successful cycle 301s ago, more than 5 × interval (300s)',
    );
    const failing = await fetch(`${server.url}/healthz`);
    expect(failing.status).toBe(503);
    expect(await failing.json()).toEqual({
      status: 'unhealthy',
      reasons: [
        'last successful cycle 301s ago, more than 5 × interval (300s)',
      ],
    });
    expect((await fetch(`${server.url}/health-check`)).status).toBe(503);
  });

  it('answers /readyz from the readiness check, independently of /healthz', async () => {
    readiness = () => unhealthy('informers not synced', 'no leader lease');
    const notReady = await fetch(`${server.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({
      status: 'unhealthy',
      reasons: ['informers not synced', 'no leader lease'],
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    readiness = () => healthy;
    const ready = await fetch(`${server.url}/readyz?verbose`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok' });
  });

  it('treats a throwing check as unhealthy', async () => {
    readiness = () => {
      throw new Error('cache closed');
    };
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'unhealthy',
      reasons: ['check failed: cache closed'],
    });
  });

  it('answers 404 elsewhere and 405 for other methods', async () => {
    const missing = await fetch(`${server.url}/metrics/extra`);
    expect(missing.status).toBe(404);
    await missing.text();
    expect((await fetch(`${server.url}/`)).status).toBe(404);
    const post = await fetch(`${server.url}/healthz`, {
      method: 'POST',
      body: '{}',
    });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers HEAD without a body', async () => {
    const response = await fetch(`${server.url}/healthz`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });
});

describe('OpsServer.close', () => {
  it('stops listening and is idempotent', async () => {
    const server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: createRegistry(),
      health: () => healthy,
      readiness: () => healthy,
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    await Promise.all([server.close(), server.close()]);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
