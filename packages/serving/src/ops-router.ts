import type { HealthCheck, HealthReport, Registry } from '@tandem/telemetry';
import express, { type Response, type Router } from 'express';
import { errorMessage } from './error-message.js';

export interface OpsRouterOptions {
  readonly registry: Registry;
  /** Liveness, served on /healthz and /livez. */
  readonly health: HealthCheck;
  /** Readiness, served on /readyz. */
  readonly readiness: HealthCheck;
}

const PATHS = ['/metrics', '/healthz', '/livez', '/readyz'];

/**
 * `GET`/`HEAD` `/metrics` (Prometheus text format), `/healthz` and `/livez` (liveness),
 * `/readyz` (readiness): 200 `{"status":"ok"}` or 503
 * `{"status":"unhealthy","reasons":[...]}`; a check that throws counts as unhealthy.
 * Other methods on these paths get 405; other paths fall through to the app.
 * The same contract as `startOpsServer` of `@tandem/telemetry`, for apps whose probes
 * and scrapes reach their HTTPS port.
 */
export function opsRouter(options: OpsRouterOptions): Router {
  const router = express.Router();
  // Express answers HEAD with the GET route, minus the body.
  router.get('/metrics', async (_request, response) => {
    const body = await options.registry.metrics();
    response
      .status(200)
      .set('Cache-Control', 'no-store')
      .type(options.registry.contentType)
      .send(body);
  });
  router.get(['/healthz', '/livez'], (_request, response) =>
    sendHealth(response, options.health),
  );
  router.get('/readyz', (_request, response) =>
    sendHealth(response, options.readiness),
  );
  router.all(PATHS, (_request, response) => {
    response
      .status(405)
      .set('Allow', 'GET, HEAD')
      .type('text/plain')
      .send('method not allowed\n');
  });
  return router;
}

async function sendHealth(
  response: Response,
  check: HealthCheck,
): Promise<void> {
  const report = await runCheck(check);
  response
    .status(report.healthy ? 200 : 503)
    .set('Cache-Control', 'no-store')
    .json(
      report.healthy
        ? { status: 'ok' }
        : { status: 'unhealthy', reasons: report.reasons },
    );
}

async function runCheck(check: HealthCheck): Promise<HealthReport> {
  try {
    return await check();
  } catch (error) {
    return {
      healthy: false,
      reasons: [`check failed: ${errorMessage(error)}`],
    };
  }
}
