import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HealthCheck, HealthReport } from '@tandem/telemetry';
import express from 'express';
import { Counter, Registry } from 'prom-client';
import { opsRouter } from './ops-router.js';

const healthy: HealthReport = { healthy: true, reasons: [] };

describe('opsRouter mounted in an express app', () => {
  let server: Server;
  let url: string;
  let health: HealthCheck = () => healthy;
  let readiness: HealthCheck = () => healthy;

  beforeAll(async () => {
    const registry = new Registry();
    new Counter({
      name: 'tandem_admission_requests_total',
      help: 'Admission requests',
      labelNames: ['outcome'],
      registers: [registry],
    }).inc({ outcome: 'patched' }, 3);
    const app = express();
    app.use(
      opsRouter({
        registry,
        health: () => health(),
        readiness: () => readiness(),
      }),
    );
    app.post('/', (_request, response) => response.json({ app: true }));
    server = createServer(app);
    await new Promise<void>((resolve) =>
      server.listen(0, '127.0.0.1', resolve),
    );
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  );

  beforeEach(() => {
    health = () => healthy;
    readiness = () => healthy;
  });

  it('serves /metrics in the Prometheus text format', async () => {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(
      'text/plain; version=0.0.4; charset=utf-8',
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toContain(
      'tandem_admission_requests_total{outcome="patched"} 3',
    );
  });

  it.each(['/healthz', '/livez', '/readyz'])(
    'answers %s with 200 {"status":"ok"} when healthy',
    async (path) => {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(
        'application/json; charset=utf-8',
      );
      expect(await response.json()).toEqual({ status: 'ok' });
    },
  );

  it('answers /healthz and /livez from liveness, /readyz from readiness', async () => {
    health = () => ({ healthy: false, reasons: ['event loop stalled'] });
    for (const path of ['/healthz', '/livez']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        status: 'unhealthy',
        reasons: ['event loop stalled'],
      });
    }
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    health = () => healthy;
    readiness = () => ({
      healthy: false,
      reasons: ['informers not synced', 'certificate not loaded'],
    });
    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({
      status: 'unhealthy',
      reasons: ['informers not synced', 'certificate not loaded'],
    });
    expect((await fetch(`${url}/livez`)).status).toBe(200);
  });

  it('treats a throwing or rejecting check as unhealthy', async () => {
    readiness = () => {
      throw new Error('cache closed');
    };
    const throwing = await fetch(`${url}/readyz`);
    expect(throwing.status).toBe(503);
    expect(await throwing.json()).toEqual({
      status: 'unhealthy',
      reasons: ['check failed: cache closed'],
    });

    health = () => Promise.reject(new Error('apiserver gone'));
    const rejecting = await fetch(`${url}/healthz`);
    expect(rejecting.status).toBe(503);
    expect(await rejecting.json()).toEqual({
      status: 'unhealthy',
      reasons: ['check failed: apiserver gone'],
    });
  });

  it('answers HEAD with the status and no body', async () => {
    const ok = await fetch(`${url}/healthz`, { method: 'HEAD' });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('');
    readiness = () => ({ healthy: false, reasons: ['not yet'] });
    const notReady = await fetch(`${url}/readyz`, { method: 'HEAD' });
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toBe('');
    const metrics = await fetch(`${url}/metrics`, { method: 'HEAD' });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toBe('');
  });

  it('answers 405 to other methods on its paths and leaves other paths to the app', async () => {
    const post = await fetch(`${url}/healthz`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.text()).toBe('method not allowed\n');

    const app = await fetch(`${url}/`, { method: 'POST', body: '{}' });
    expect(await app.json()).toEqual({ app: true });
    expect((await fetch(`${url}/nowhere`)).status).toBe(404);
  });
});
