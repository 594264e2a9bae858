import {
  compileLabelSelector,
  parseLabelSelector,
  type LabelSelector,
  type LabelSelectorMatcher,
} from '@tandem/vpa-api';
import type { CustomMetricsVersion } from './api-group.js';
import {
  isMetricName,
  isUtilizationMetric,
  METRIC_NAMES,
  UTILIZATION_METRICS,
  type MetricName,
} from './metric-names.js';
import type { MetricRequest } from './metric-path.js';
import { containerFromMetricSelector } from './metric-selector.js';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  DEPLOYMENTS,
} from './discovery.js';
import type { MetricObservations } from './metric-observations.js';
import type { StampedList } from './metric-value-list.js';
import { metricNotFoundMessage, status, type StatusCode } from './status.js';

/** What the adapter answers, and what it should count and log about it. */
export interface MetricAnswer {
  code: 200 | StatusCode;
  /** The response body: JSON in UTF-8, ready to send. */
  body: Buffer;
  /** How many values the body holds: 0 for a Status or discovery. */
  items: number;
  /** The body with where its items' timestamps are, for a list of pods: to stamp it anew. */
  stamped?: StampedList;
  observations: MetricObservations;
}

/** The pods a query measures: by name (or `*`) and labelSelector, or a Deployment's. */
export type MetricTarget =
  | { kind: 'pods'; name: string; labels: LabelSelectorMatcher }
  | { kind: 'deployment'; name: string };

/** A metric read that passed every check needing no input: what to measure. */
export interface MetricQuery {
  version: CustomMetricsVersion;
  namespace: string;
  metric: MetricName;
  target: MetricTarget;
  /** The one container metricLabelSelector picked; undefined for the pod's sum. */
  container: string | undefined;
  /** The metricLabelSelector as sent, for messages. */
  metricLabelSelector: string | undefined;
  /** The same, parsed, echoed on every item. */
  metricSelector: LabelSelector | undefined;
}

/**
 * Either the answer, when the request needs no input (discovery, an unknown metric or
 * object, a bad selector), or the query whose inputs the app reads before
 * `answerMetricQuery`: usage of the namespace, and the Deployment for an Object metric.
 * So nothing is read for a request that fails on its own.
 */
export type MetricPlan = { answer: MetricAnswer } | { query: MetricQuery };

const NO_OBSERVATIONS: MetricObservations = {
  originals: {},
  malformedAnnotations: [],
  currentRequests: [],
};

const answered = (code: MetricAnswer['code'], body: object): MetricPlan => ({
  answer: {
    code,
    body: Buffer.from(JSON.stringify(body)),
    items: 0,
    observations: NO_OBSERVATIONS,
  },
});

const notFound = (message: string) =>
  answered(404, status(404, 'NotFound', message));

/** A query parameter as text; absent, empty or repeated counts as absent. */
function queryText(
  query: Readonly<Record<string, unknown>>,
  name: string,
): string | undefined {
  const value = query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The first, input-free half of a metric request (`path` is the request's, for the
 * not-found message; `query` its parsed query string). Never throws.
 */
export function planMetricRequest(
  request: MetricRequest,
  path: string,
  query: Readonly<Record<string, unknown>>,
): MetricPlan {
  switch (request.kind) {
    case 'discovery-root':
      return answered(200, apiGroupList());
    case 'discovery-group':
      return answered(200, apiGroup());
    case 'discovery-version':
      return answered(200, apiResourceList(request.version));
    case 'pods':
      return planPods(request, query);
    case 'other-object':
      return planObject(request, query);
    case 'not-found':
      return notFound(`the server could not find ${path}`);
  }
}

function planPods(
  request: Extract<MetricRequest, { kind: 'pods' }>,
  query: Readonly<Record<string, unknown>>,
): MetricPlan {
  if (!isMetricName(request.metric))
    return notFound(
      `${metricNotFoundMessage(request.metric, 'pods', request.name === '*' ? undefined : request.name)} (served: ${METRIC_NAMES.join(', ')})`,
    );
  let labels: LabelSelectorMatcher;
  const labelSelector = queryText(query, 'labelSelector');
  try {
    labels = compileLabelSelector(
      labelSelector === undefined ? {} : parseLabelSelector(labelSelector),
    );
  } catch (error) {
    return answered(
      400,
      status(400, 'BadRequest', `labelSelector: ${(error as Error).message}`),
    );
  }
  return withContainer(request.version, request.namespace, request.metric, {
    query,
    target: { kind: 'pods', name: request.name, labels },
  });
}

function planObject(
  request: Extract<MetricRequest, { kind: 'other-object' }>,
  query: Readonly<Record<string, unknown>>,
): MetricPlan {
  const { resource, name, metric, namespace } = request;
  if (resource !== DEPLOYMENTS || namespace === undefined)
    return notFound(
      `${metricNotFoundMessage(metric, resource, name)}: Tandem serves per-pod metrics (pods/*/<metric>) and utilizations per Deployment (${DEPLOYMENTS}/<name>/<metric>) only`,
    );
  if (!isMetricName(metric) || !isUtilizationMetric(metric))
    return notFound(
      `${metricNotFoundMessage(metric, DEPLOYMENTS, name)} (served for ${DEPLOYMENTS}: ${UTILIZATION_METRICS.join(', ')})`,
    );
  if (name === '*')
    return notFound(
      `${metricNotFoundMessage(metric, DEPLOYMENTS)}: Tandem serves one named Deployment at a time (${DEPLOYMENTS}/<name>/${metric})`,
    );
  return withContainer(request.version, namespace, metric, {
    query,
    target: { kind: 'deployment', name },
  });
}

function withContainer(
  version: CustomMetricsVersion,
  namespace: string,
  metric: MetricName,
  {
    query,
    target,
  }: { query: Readonly<Record<string, unknown>>; target: MetricTarget },
): MetricPlan {
  const metricLabelSelector = queryText(query, 'metricLabelSelector');
  const choice = containerFromMetricSelector(metricLabelSelector);
  if ('error' in choice)
    return answered(400, status(400, 'BadRequest', choice.error));
  return {
    query: {
      version,
      namespace,
      metric,
      target,
      container: choice.container,
      metricLabelSelector,
      // Accepted by containerFromMetricSelector, so it parses.
      metricSelector:
        metricLabelSelector === undefined
          ? undefined
          : parseLabelSelector(metricLabelSelector),
    },
  };
}
