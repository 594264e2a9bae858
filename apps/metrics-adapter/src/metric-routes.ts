import express, { type Request, type Response } from 'express';
import type { Span } from '@opentelemetry/api';
import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  CUSTOM_METRICS_GROUP,
  keptAnswers,
  openApiV2,
  openApiV3Discovery,
  openApiV3Group,
  planMetricRequest,
  type KeptAnswers,
  type MetricAnswer,
  type MetricObservations,
  type MetricQuery,
  type PodForMetrics,
  type UsageRead,
} from '@tandem/custom-metrics';
import { describeError } from '@tandem/kube';
import type { RequestAttributes } from './auth/index.js';
import type { AdapterMetrics } from './adapter-metrics.js';
import type { DeploymentReader } from './deployment-reader.js';
import { metricPathOf } from './metric-path-of.js';
import type { UsageReader } from './usage-source.js';

export interface MetricRoutesContext {
  /** The live pods of a namespace, from the pod cache. */
  podsIn(namespace: string): V1Pod[];
  /** A pod as the utilization maths read it (see `podViews`). */
  viewOf(pod: V1Pod): PodForMetrics;
  /**
   * What changes when `podsIn(namespace)` or its pods' templates may have changed (the
   * pod index's and the templates' revisions): an answer is kept while it and the usage
   * read stay the same (`keptAnswers`).
   */
  revisionOf(namespace: string): readonly unknown[];
  usage: UsageReader;
  /** A Deployment's selector, for Object metrics (`deployments.apps/<name>/<metric>`). */
  deployments: DeploymentReader;
  /** `metrics.k8s.io` or `prometheus`, for error messages and counts. */
  sourceName: string;
  metrics: AdapterMetrics;
  logger: Logger;
  now: () => Date;
}

/**
 * The span of a request names what was asked (`custom_metrics.pods`,
 * `custom_metrics.discovery-version`, …) rather than a route pattern.
 */
export function requestSpanName(request: Request): string {
  const parsed = metricPathOf(request.path);
  return parsed.kind === 'not-found'
    ? `${request.method} ${request.path}`
    : `custom_metrics.${parsed.kind}`;
}

/** How a request is authorized: metric reads as the Go apiserver derives them (§1.3). */
export function requestAttributes(request: Request): RequestAttributes {
  const parsed = metricPathOf(request.path);
  if (parsed.kind === 'pods' || parsed.kind === 'other-object')
    return {
      resource: {
        namespace: parsed.namespace,
        verb: 'get',
        group: CUSTOM_METRICS_GROUP,
        version: parsed.version,
        resource: parsed.kind === 'pods' ? 'pods' : parsed.resource,
        subresource: parsed.metric,
        name: parsed.name,
      },
    };
  return { nonResource: { path: request.path, verb: 'get' } };
}

/**
 * Discovery, OpenAPI and metric reads. Discovery and OpenAPI never touch a metric source, so
 * the aggregator's availability probe passes while metrics-server or Prometheus is down.
 * What a metric read answers is `@tandem/custom-metrics`' (`planMetricRequest`, then
 * `answerMetricQuery` on what this reads); the routes only read, send, count and log.
 */
export function metricRoutes(context: MetricRoutesContext): express.Router {
  const router = express.Router();
  const kept = keptAnswers();
  router.get('/openapi/v2', (request, response) =>
    json(request, response, 200, JSON.stringify(openApiV2())),
  );
  router.get('/openapi/v3', (request, response) =>
    json(request, response, 200, JSON.stringify(openApiV3Discovery())),
  );
  router.get(
    /^\/openapi\/v3\/apis\/custom\.metrics\.k8s\.io\/(v1beta1|v1beta2)$/,
    (request, response) =>
      json(
        request,
        response,
        200,
        JSON.stringify(
          openApiV3Group(request.params[0] as 'v1beta1' | 'v1beta2'),
        ),
      ),
  );
  router.get(/^\/apis(\/.*)?$/, async (request, response) => {
    const started = process.hrtime.bigint();
    const parsed = metricPathOf(request.path);
    const plan = planMetricRequest(parsed, request.path, request.query);
    const { code, body, items, observations } =
      'answer' in plan
        ? plan.answer
        : await answer(request.url, plan.query, context, kept);
    json(request, response, code, body);
    if ('query' in plan) {
      record(observations, plan.query, context);
      (response.locals as { span?: Span }).span?.setAttributes({
        'k8s.namespace.name': plan.query.namespace,
        'tandem.metric.name': plan.query.metric,
        'tandem.metric.items': items,
      });
    }
    context.metrics.requestDuration.observe(
      { kind: parsed.kind, code: String(code) },
      Number(process.hrtime.bigint() - started) / 1e9,
    );
  });
  return router;
}

/**
 * Sends a JSON body with the headers express's `res.type('application/json').send()` wrote,
 * without its per-request work (charset lookup, freshness check): a HEAD gets the headers
 * only, as express answers a HEAD from a GET route.
 */
function json(
  request: Request,
  response: Response,
  code: number,
  body: Buffer | string,
): void {
  response.writeHead(code, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/**
 * Reads what the query needs (usage; the Deployment of an Object metric), then answers,
 * from the answer kept for the same `url` while the namespace's pods, templates and usage
 * read are the same.
 */
async function answer(
  url: string,
  query: MetricQuery,
  context: MetricRoutesContext,
  kept: KeptAnswers,
): Promise<MetricAnswer> {
  const [usage, deployment] = await Promise.all([
    context.usage(query.namespace).then(
      (read): UsageRead => ({ usage: read }),
      (error: unknown): UsageRead => ({ failure: describeError(error) }),
    ),
    query.target.kind === 'deployment'
      ? context.deployments(query.namespace, query.target.name)
      : undefined,
  ]);
  // Read before the pods are: an event arriving later moves it and is seen next time.
  const revision = context.revisionOf(query.namespace);
  return kept(
    url,
    query,
    {
      // Views only of the pods the query picks: a namespace may hold thousands it never reads.
      pods: (picked) =>
        context
          .podsIn(query.namespace)
          .filter((pod) =>
            picked(pod.metadata?.name ?? '', pod.metadata?.labels ?? {}),
          )
          .map(context.viewOf),
      usage,
      deployment,
      sourceName: context.sourceName,
      now: context.now(),
    },
    revision,
  );
}

/** Counts and logs what answering saw. */
function record(
  observations: MetricObservations,
  { namespace, metric }: MetricQuery,
  { metrics, logger, sourceName }: MetricRoutesContext,
): void {
  for (const [source, count] of Object.entries(observations.originals))
    metrics.originals.inc({ source }, count);
  for (const {
    namespace,
    pod,
    annotation,
    fallback,
  } of observations.malformedAnnotations) {
    metrics.malformedAnnotations.inc();
    logger.warn(
      { namespace, pod },
      `malformed tandem.dev/original-resources (${annotation}); measured against the ${fallback} values`,
    );
  }
  for (const { namespace, pod } of observations.currentRequests)
    logger.debug(
      { namespace, pod },
      'no original-resources annotation nor controller template: measured against the current requests',
    );
  if (observations.noValue !== undefined)
    logger.info(
      { namespace, metric },
      `no pod has a value: ${observations.noValue.join('; ')}`,
    );
  if (observations.sourceFailure !== undefined) {
    metrics.sourceErrors.inc({ source: sourceName });
    logger.warn(
      { namespace, source: sourceName },
      `usage source failed: ${observations.sourceFailure}`,
    );
  }
  if (observations.deploymentFailure !== undefined)
    logger.warn(
      { namespace, metric },
      `deployment read failed: ${observations.deploymentFailure}`,
    );
}
