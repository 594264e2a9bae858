import express, { type Response } from 'express';
import type { Logger } from 'pino';
import {
  apiResourceList,
  isServedByTandem,
  mergeDiscovery,
  status,
} from '@tandem/custom-metrics';
import { metricPathOf } from '../metric-path-of.js';
import type { UpstreamGet } from './upstream-client.js';
import { UpstreamUnavailable } from './upstream-client.js';
import type { UpstreamDiscovery } from './upstream-discovery.js';

/**
 * Below the aggregator's own limit on a proxied request, so the caller gets our Status
 * naming the provider rather than the aggregator's bare timeout.
 */
export const FORWARD_TIMEOUT_MS = 10_000;

export interface PassThroughContext {
  /** The `--upstream-provider` URL, named in every error about it. */
  upstreamUrl: string;
  get: UpstreamGet;
  discovery: UpstreamDiscovery;
  /** One per request answered here: `forwarded` or `discovery-version`, and the status code. */
  observe: (kind: string, code: number, seconds: number) => void;
  logger: Logger;
  forwardTimeoutMs?: number;
}

/**
 * Mounted after delegated authentication and authorization, before Tandem's own routes
 * (ADR 0022). A version's discovery answers Tandem's resources merged with the upstream's;
 * a metric read `isServedByTandem` refuses goes to the upstream with the same path and
 * query, as the adapter's own identity, and its answer comes back as it was. Everything
 * else falls through to Tandem.
 */
export function passThroughRoutes(context: PassThroughContext): express.Router {
  const router = express.Router();
  const timeoutMs = context.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS;
  const shadowedLogged = new Set<string>();
  router.get(/^\/apis\/.+$/, async (request, response, next) => {
    const parsed = metricPathOf(request.path);
    const started = process.hrtime.bigint();
    const observe = (kind: string, code: number) =>
      context.observe(
        kind,
        code,
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    if (parsed.kind === 'discovery-version') {
      const { list, shadowed } = mergeDiscovery(
        apiResourceList(parsed.version),
        await context.discovery(parsed.version),
      );
      for (const name of shadowed.filter((n) => !shadowedLogged.has(n))) {
        shadowedLogged.add(name);
        context.logger.warn(
          { upstream: context.upstreamUrl, resource: name },
          'the upstream provider serves a metric Tandem serves too: Tandem answers it',
        );
      }
      sendJson(response, 200, list);
      return observe('discovery-version', 200);
    }
    if (isServedByTandem(parsed)) return next();
    try {
      const answer = await context.get(request.originalUrl, {
        accept: request.headers.accept,
        timeoutMs,
      });
      response.status(answer.status);
      if (answer.contentType !== undefined) response.type(answer.contentType);
      response.send(answer.body);
      observe('forwarded', answer.status);
    } catch (error) {
      if (!(error instanceof UpstreamUnavailable)) throw error;
      const message = `the upstream custom metrics provider ${context.upstreamUrl} (--upstream-provider) did not answer ${request.path}: ${error.message}`;
      context.logger.warn({ upstream: context.upstreamUrl }, message);
      sendJson(response, 503, status(503, 'ServiceUnavailable', message));
      observe('forwarded', 503);
    }
  });
  return router;
}

function sendJson(response: Response, code: number, body: object): void {
  response.status(code).type('application/json').send(JSON.stringify(body));
}
