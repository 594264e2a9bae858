import express, { type Request, type Response } from 'express';
import type { Span } from '@opentelemetry/api';
import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  containerFromMetricSelector,
  CUSTOM_METRICS_GROUP,
  METRIC_NAMES,
  metricNotFoundMessage,
  metricValueList,
  openApiV2,
  openApiV3Discovery,
  openApiV3Group,
  parseMetricPath,
  podMetric,
  status,
  type MetricName,
  type MetricRequest,
  type MetricValue,
} from '@tandem/custom-metrics';
import { describeError } from '@tandem/kube';
import {
  compileLabelSelector,
  parseLabelSelector,
  type LabelSelector,
} from '@tandem/vpa-api';
import type { RequestAttributes } from './auth/index.js';
import type { AdapterMetrics } from './adapter-metrics.js';
import type { PodTemplates } from './pod-templates.js';
import { podView } from './pod-view.js';
import type { UsageReader } from './usage-source.js';

export interface MetricRoutesContext {
  /** The live pods of a namespace, from the pod cache. */
  podsIn(namespace: string): V1Pod[];
  templates: Pick<PodTemplates, 'containersOf'>;
  usage: UsageReader;
  /** `metrics.k8s.io` or `prometheus`, for error messages and counts. */
  sourceName: string;
  metrics: AdapterMetrics;
  logger: Logger;
  now: () => Date;
}

/** metrics-server's resolution in seconds: the window the values describe. */
const WINDOW_SECONDS = 60;

/**
 * The span of a request names what was asked (`custom_metrics.pods`,
 * `custom_metrics.discovery-version`, …) rather than a route pattern.
 */
export function requestSpanName(request: Request): string {
  const parsed = parseMetricPath(request.path);
  return parsed.kind === 'not-found'
    ? `${request.method} ${request.path}`
    : `custom_metrics.${parsed.kind}`;
}

/** How a request is authorized: metric reads as the Go apiserver derives them (§1.3). */
export function requestAttributes(request: Request): RequestAttributes {
  const parsed = parseMetricPath(request.path);
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
 */
export function metricRoutes(context: MetricRoutesContext): express.Router {
  const router = express.Router();
  const json = (response: Response, code: number, body: object) =>
    response.status(code).type('application/json').send(JSON.stringify(body));
  router.get('/openapi/v2', (_request, response) =>
    json(response, 200, openApiV2()),
  );
  router.get('/openapi/v3', (_request, response) =>
    json(response, 200, openApiV3Discovery()),
  );
  router.get(
    /^\/openapi\/v3\/apis\/custom\.metrics\.k8s\.io\/(v1beta1|v1beta2)$/,
    (request, response) =>
      json(
        response,
        200,
        openApiV3Group(request.params[0] as 'v1beta1' | 'v1beta2'),
      ),
  );
  router.get(/^\/apis(\/.*)?$/, async (request, response) => {
    const started = process.hrtime.bigint();
    const parsed = parseMetricPath(request.path);
    const { code, body } = await answer(parsed, request, context);
    json(response, code, body);
    if (parsed.kind === 'pods')
      (response.locals as { span?: Span }).span?.setAttributes({
        'k8s.namespace.name': parsed.namespace,
        'tandem.metric.name': parsed.metric,
        'tandem.metric.items':
          (body as { items?: unknown[] }).items?.length ?? 0,
      });
    context.metrics.requestDuration.observe(
      { kind: parsed.kind, code: String(code) },
      Number(process.hrtime.bigint() - started) / 1e9,
    );
  });
  return router;
}

async function answer(
  parsed: MetricRequest,
  request: Request,
  context: MetricRoutesContext,
): Promise<{ code: number; body: object }> {
  switch (parsed.kind) {
    case 'discovery-root':
      return { code: 200, body: apiGroupList() };
    case 'discovery-group':
      return { code: 200, body: apiGroup() };
    case 'discovery-version':
      return { code: 200, body: apiResourceList(parsed.version) };
    case 'pods':
      return podMetrics(parsed, request, context);
    case 'other-object':
      return {
        code: 404,
        body: status(
          404,
          'NotFound',
          `${metricNotFoundMessage(parsed.metric, parsed.resource, parsed.name)}: Tandem serves per-pod metrics only (pods/*/<metric>)`,
        ),
      };
    case 'not-found':
      return {
        code: 404,
        body: status(
          404,
          'NotFound',
          `the server could not find ${request.path}`,
        ),
      };
  }
}

function queryText(request: Request, name: string): string | undefined {
  const value = request.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

async function podMetrics(
  parsed: Extract<MetricRequest, { kind: 'pods' }>,
  request: Request,
  context: MetricRoutesContext,
): Promise<{ code: number; body: object }> {
  const metric = parsed.metric as MetricName;
  if (!METRIC_NAMES.includes(metric))
    return {
      code: 404,
      body: status(
        404,
        'NotFound',
        `${metricNotFoundMessage(parsed.metric, 'pods', parsed.name === '*' ? undefined : parsed.name)} (served: ${METRIC_NAMES.join(', ')})`,
      ),
    };
  let selector: LabelSelector | undefined;
  const labelSelector = queryText(request, 'labelSelector');
  try {
    selector =
      labelSelector === undefined
        ? undefined
        : parseLabelSelector(labelSelector);
  } catch (error) {
    return {
      code: 400,
      body: status(
        400,
        'BadRequest',
        `labelSelector: ${(error as Error).message}`,
      ),
    };
  }
  const metricLabelSelector = queryText(request, 'metricLabelSelector');
  const containerChoice = containerFromMetricSelector(metricLabelSelector);
  if ('error' in containerChoice)
    return {
      code: 400,
      body: status(400, 'BadRequest', containerChoice.error),
    };
  const matches = compileLabelSelector(selector ?? {});
  // Echoed on every item: parsed once per request (containerFromMetricSelector accepted it).
  const metricSelector =
    metricLabelSelector === undefined
      ? undefined
      : parseLabelSelector(metricLabelSelector);
  const pods = context
    .podsIn(parsed.namespace)
    .filter(
      (pod) =>
        (parsed.name === '*' || pod.metadata?.name === parsed.name) &&
        matches.matches(pod.metadata?.labels ?? {}),
    );
  let usage;
  try {
    usage = await context.usage(parsed.namespace);
  } catch (error) {
    context.metrics.sourceErrors.inc({ source: context.sourceName });
    const reason = describeError(error);
    context.logger.warn(
      { namespace: parsed.namespace, source: context.sourceName },
      `usage source failed: ${reason}`,
    );
    return {
      code: 503,
      body: status(
        503,
        'ServiceUnavailable',
        `unable to read pod usage for namespace ${parsed.namespace} from ${context.sourceName}: ${reason}`,
      ),
    };
  }
  const timestamp = context
    .now()
    .toISOString()
    .replace(/\.\d+Z$/, 'Z');
  const values: MetricValue[] = [];
  const reasons: string[] = [];
  // Counted once per source and request, not per pod: a request covers every pod.
  const measuredBy = new Map<string, number>();
  for (const pod of pods) {
    const view = podView(pod, context.templates.containersOf(pod));
    const result = podMetric(
      view,
      usage.get(view.name),
      metric,
      containerChoice.container,
    );
    measuredBy.set(
      result.originals,
      (measuredBy.get(result.originals) ?? 0) + 1,
    );
    if (result.malformedAnnotation !== undefined) {
      context.metrics.malformedAnnotations.inc();
      context.logger.warn(
        { namespace: view.namespace, pod: view.name },
        `malformed tandem.dev/original-resources (${result.malformedAnnotation}); measured against the ${result.originals} values`,
      );
    } else if (result.originals === 'current' && metric.includes('original')) {
      context.logger.debug(
        { namespace: view.namespace, pod: view.name },
        'no original-resources annotation nor controller template: measured against the current requests',
      );
    }
    if (result.value === undefined) {
      reasons.push(`${view.name}: ${result.reason ?? 'no value'}`);
      continue;
    }
    values.push({
      podName: view.name,
      namespace: view.namespace,
      metric,
      selector: metricSelector,
      timestamp,
      windowSeconds: WINDOW_SECONDS,
      value: result.value,
    });
  }
  for (const [source, count] of measuredBy)
    context.metrics.originals.inc({ source }, count);
  if (parsed.name !== '*' && values.length === 0)
    return {
      code: 404,
      body: status(
        404,
        'NotFound',
        `${metricNotFoundMessage(metric, 'pods', parsed.name, metricLabelSelector)}${reasons.length > 0 ? `: ${reasons.join('; ')}` : ''}`,
      ),
    };
  if (values.length === 0 && reasons.length > 0)
    context.logger.info(
      { namespace: parsed.namespace, metric },
      `no pod has a value: ${reasons.slice(0, 5).join('; ')}`,
    );
  return { code: 200, body: metricValueList(parsed.version, values) };
}
