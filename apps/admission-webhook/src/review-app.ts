import express, {
  type ErrorRequestHandler,
  type Express,
  type Response,
} from 'express';
import type { Span, Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import {
  admit,
  type AdmissionContext,
  type AdmissionResult,
} from '@tandem/admission';
import type { EventRecorder } from '@tandem/kube';
import { opsRouter, requestSpans } from '@tandem/serving';
import {
  EVENT_REASON_ATTRIBUTE,
  type HealthCheck,
  type Registry,
} from '@tandem/telemetry';
import type { WebhookMetrics } from './webhook-metrics.js';

/** Upstream's limit on an AdmissionReview body; the API server never sends more. */
export const MAX_REVIEW_BYTES = 5 * 1024 * 1024;

export interface ReviewAppOptions {
  context: AdmissionContext;
  metrics: WebhookMetrics;
  /** Writes the events a review earned; returns at once, so no review waits for a write. */
  recordEvent: EventRecorder;
  registry: Registry;
  tracer: Tracer;
  logger: Logger;
  health: HealthCheck;
  readiness: HealthCheck;
}

/**
 * The webhook's HTTPS surface: `POST /` takes an AdmissionReview (JSON, at most 5 MiB) and
 * answers with one; /metrics and the health endpoints sit beside it. Every request gets a
 * span; every review a log line, a latency observation and a count by outcome. Garbage gets
 * a 4xx with a message and is counted: it never throws past this handler, and a pod is
 * never denied here (only an invalid VPA is).
 */
export function reviewApp(options: ReviewAppOptions): Express {
  const { metrics, logger } = options;
  const app = express();
  app.disable('x-powered-by');
  // Every review is answered once: an ETag would only cost a hash of every body.
  app.set('etag', false);
  app.use(requestSpans(options.tracer, (request) => reviewSpanName(request)));
  app.use(
    opsRouter({
      registry: options.registry,
      health: options.health,
      readiness: options.readiness,
    }),
  );
  app.post(
    '/',
    (request, response, next) => {
      response.locals['receivedAt'] = process.hrtime.bigint();
      if (request.is('application/json')) return next();
      refuse(
        response,
        415,
        'unsupported-media-type',
        `invalid Content-Type ${request.get('content-type') ?? '(none)'}, expected application/json`,
      );
    },
    express.json({ limit: MAX_REVIEW_BYTES, strict: false }),
    async (request, response) => {
      const started = response.locals['receivedAt'] as bigint;
      const read = secondsSince(started);
      const result = await admit(request.body as unknown, options.context);
      const admitted = secondsSince(started);
      if (result.review === undefined) {
        refuse(response, 400, 'malformed', result.message);
      } else {
        response.status(200).json(result.review);
      }
      const total = secondsSince(started);
      metrics.executionLatency.observe({ step: 'read_request' }, read);
      metrics.executionLatency.observe({ step: 'admit' }, admitted - read);
      metrics.executionLatency.observe(
        { step: 'write_response' },
        total - admitted,
      );
      metrics.executionLatency.observe({ step: 'total' }, total);
      record(result, total, options, response);
    },
  );
  app.use(((error: unknown, _request, response, _next) => {
    const { status, kind, message } = bodyError(error);
    refuse(response, status, kind, message);
  }) satisfies ErrorRequestHandler);

  function refuse(
    response: Response,
    status: number,
    kind: string,
    message: string,
  ): void {
    metrics.rejectedInput.inc({ kind });
    spanOf(response)?.setAttribute('tandem.admission.outcome', 'error');
    logger.warn({ kind, status }, `admission request refused: ${message}`);
    response.status(status).json({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: status,
      reason: kind,
      message,
    });
  }
  return app;
}

function reviewSpanName(request: express.Request): string {
  return request.method === 'POST' && request.path === '/'
    ? 'admission.review'
    : `${request.method} ${request.path}`;
}

function record(
  result: AdmissionResult,
  seconds: number,
  { metrics, logger, recordEvent }: ReviewAppOptions,
  response: Response,
): void {
  metrics.admissionLatency.observe(
    { status: result.outcome, resource: result.resource },
    seconds,
  );
  if (result.resource === 'Pod')
    metrics.admissionPods.inc({
      applied: String(result.outcome === 'applied'),
    });
  const fields = {
    resource: result.resource,
    outcome: result.outcome,
    namespace: result.namespace,
    pod: result.podName,
    vpa: result.vpaName,
    owner:
      result.ownerKind === undefined
        ? undefined
        : `${result.ownerKind}/${result.ownerName ?? ''}`,
    durationMs: Math.round(seconds * 1e6) / 1e3,
  };
  spanOf(response)?.setAttributes(
    Object.fromEntries(
      Object.entries({
        'tandem.admission.resource': fields.resource,
        'tandem.admission.outcome': fields.outcome,
        'k8s.namespace.name': fields.namespace,
        'k8s.pod.name': fields.pod,
        'tandem.vpa.name': fields.vpa,
        'tandem.owner': fields.owner,
      }).filter(([, value]) => value !== undefined),
    ) as Record<string, string>,
  );
  for (const { vpa, type, reason, message } of result.events ?? []) {
    spanOf(response)?.setAttribute(EVENT_REASON_ATTRIBUTE, reason);
    recordEvent(vpa, type, reason, message);
  }
  if (result.outcome === 'error') logger.warn(fields, result.message);
  else logger.debug(fields, result.message);
  recordPodLevelResources(result.podLevelResources ?? [], fields, {
    metrics,
    logger,
  });
}

/** Resources left as declared because the pod sets them at pod level: counted, and logged once. */
function recordPodLevelResources(
  resources: readonly string[],
  fields: Record<string, unknown>,
  { metrics, logger }: Pick<ReviewAppOptions, 'metrics' | 'logger'>,
): void {
  if (resources.length === 0) return;
  for (const resource of resources) metrics.podLevelResources.inc({ resource });
  logger.info(
    { ...fields, podLevelResources: resources },
    `containers' ${resources.join(', ')} left as declared: the pod sets them at pod level`,
  );
}

function spanOf(response: Response): Span | undefined {
  return (response.locals as { span?: Span }).span;
}

/** body-parser's errors carry `type` and `status`; anything else is ours and a 500. */
function bodyError(error: unknown): {
  status: number;
  kind: string;
  message: string;
} {
  const { type, status, message } = error as {
    type?: string;
    status?: number;
    message?: string;
  };
  if (type === 'entity.too.large')
    return {
      status: 413,
      kind: 'oversized',
      message: `request body larger than ${MAX_REVIEW_BYTES} bytes`,
    };
  if (type === 'entity.parse.failed')
    return {
      status: 400,
      kind: 'malformed',
      message: `request body is not JSON: ${message ?? ''}`,
    };
  if (typeof status === 'number' && status >= 400 && status < 500)
    return { status, kind: type ?? 'bad-request', message: message ?? '' };
  return {
    status: 500,
    kind: 'internal',
    message: `internal error: ${message ?? String(error)}`,
  };
}

function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}
