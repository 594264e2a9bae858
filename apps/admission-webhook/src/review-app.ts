import type { RequestListener } from 'node:http';
import express, { type ErrorRequestHandler } from 'express';
import type { Span, Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import {
  admit,
  type AdmissionContext,
  type AdmissionResult,
} from '@tandem/admission';
import type { EventRecorder } from '@tandem/kube';
import {
  jsonEndpoint,
  opsRouter,
  requestSpans,
  type JsonReply,
  type RequestProblem,
} from '@tandem/serving';
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
 * answers with one, through serving's `jsonEndpoint` (the API server calls it on every pod
 * creation); /metrics and the health endpoints sit beside it, in express. Every request
 * gets a span; every review a log line, a latency observation and a count by outcome.
 * Garbage gets a 4xx with a message and is counted: it never throws past this handler, and
 * a pod is never denied here (only an invalid VPA is).
 */
export function reviewApp(options: ReviewAppOptions): RequestListener {
  const { metrics, logger } = options;
  const ops = express();
  ops.disable('x-powered-by');
  ops.use(requestSpans(options.tracer));
  ops.use(
    opsRouter({
      registry: options.registry,
      health: options.health,
      readiness: options.readiness,
    }),
  );
  ops.use(((error: unknown, _request, response, _next) => {
    response.status(500).json(
      status({
        status: 500,
        kind: 'internal',
        message: `internal error: ${String(error)}`,
      }),
    );
  }) satisfies ErrorRequestHandler);

  return jsonEndpoint(
    {
      path: '/',
      maxBytes: MAX_REVIEW_BYTES,
      tracer: options.tracer,
      spanName: 'admission.review',
      answer: async (body, span, { receivedAt, parsedAt }) => {
        const result = await admit(body, options.context);
        const admittedAt = process.hrtime.bigint();
        const reply: JsonReply =
          result.review === undefined
            ? refuse(
                { status: 400, kind: 'malformed', message: result.message },
                span,
              )
            : { status: 200, body: result.review };
        return {
          ...reply,
          sent: () => {
            const sentAt = process.hrtime.bigint();
            const total = secondsBetween(receivedAt, sentAt);
            const steps = {
              read_request: secondsBetween(receivedAt, parsedAt),
              admit: secondsBetween(parsedAt, admittedAt),
              write_response: secondsBetween(admittedAt, sentAt),
              total,
            };
            for (const [step, seconds] of Object.entries(steps))
              metrics.executionLatency.observe({ step }, seconds);
            record(result, total, options, span);
          },
        };
      },
      refuse,
    },
    ops,
  );

  function refuse(problem: RequestProblem, span: Span): JsonReply {
    metrics.rejectedInput.inc({ kind: problem.kind });
    span.setAttribute('tandem.admission.outcome', 'error');
    logger.warn(
      { kind: problem.kind, status: problem.status },
      `admission request refused: ${problem.message}`,
    );
    return { status: problem.status, body: status(problem) };
  }
}

/** A Kubernetes Status saying why a request was refused. */
function status({ status: code, kind, message }: RequestProblem) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason: kind,
    message,
  };
}

function record(
  result: AdmissionResult,
  seconds: number,
  { metrics, logger, recordEvent }: ReviewAppOptions,
  span: Span,
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
  span.setAttributes(
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
    span.setAttribute(EVENT_REASON_ATTRIBUTE, reason);
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

function secondsBetween(start: bigint, end: bigint): number {
  return Number(end - start) / 1e9;
}
