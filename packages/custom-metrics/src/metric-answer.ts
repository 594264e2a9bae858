import { compileLabelSelector, type LabelSelector } from '@tandem/vpa-api';
import { DEPLOYMENTS } from './discovery.js';
import { isUtilizationMetric } from './metric-names.js';
import type { MetricObservations } from './metric-observations.js';
import type { MetricAnswer, MetricQuery } from './metric-plan.js';
import { wholePercent } from './metric-quantity.js';
import {
  describedDeployment,
  describedPod,
  itemBytes,
  metricValueList,
  stampedItemList,
  type DescribedObject,
  type MetricValue,
} from './metric-value-list.js';
import {
  rememberedPodMeasure,
  type MeasureQuery,
  type PodMeasure,
} from './remembered-pod-measure.js';
import type { ContainerUsage, PodForMetrics } from './pod-for-metrics.js';
import { metricNotFoundMessage, status } from './status.js';

/** One namespace's usage read: per pod name, each container's usage; or why it failed. */
export type UsageRead =
  | { usage: ReadonlyMap<string, readonly ContainerUsage[]> }
  | { failure: string };

/** The Deployment of an Object metric, as read from the API server. */
export type DeploymentRead =
  | { selector: LabelSelector | undefined }
  | { notFound: true }
  | { failure: string };

/** Whether the query measures the pod of that name and those labels. */
export type PodPicker = (
  name: string,
  labels: Readonly<Record<string, string>>,
) => boolean;

/**
 * The pods of the query's namespace that `picked` keeps, as the utilization maths read
 * them: the app hands its cached pods to `picked` first and makes views of the kept ones
 * only (a namespace may hold thousands of pods a query never reads).
 */
export type PodsPicked = (picked: PodPicker) => readonly PodForMetrics[];

/** `PodsPicked` over pods already viewed. */
export const pickedFrom =
  (pods: readonly PodForMetrics[]): PodsPicked =>
  (picked) =>
    pods.filter((pod) => picked(pod.name, pod.labels));

/** What the app read for a query. */
export interface MetricInputs {
  pods: PodsPicked;
  usage: UsageRead;
  /** Read for a Deployment target only. */
  deployment?: DeploymentRead;
  /** `metrics.k8s.io` or `prometheus`, for messages. */
  sourceName: string;
  now: Date;
}

/** metrics-server's resolution in seconds: the window the values describe. */
const WINDOW_SECONDS = 60;

/** The first reasons a message or log line carries. */
const REASONS_SHOWN = 5;

/**
 * The second half of a metric request (see `planMetricRequest`): which pods to measure,
 * their values, the status code and body, and the observations to count and log. Pure and
 * synchronous, like the webhook's `admit()`: it never throws and reads nothing but
 * `inputs`. What it works out per pod, its value and its item's JSON, is remembered per
 * pod view and usage read (see `rememberedPodMeasure`), so an app that keeps its views
 * answers the HPA's repeated queries without measuring or writing items again: only the
 * timestamp is new. The same inputs still give the same answer.
 *
 * - Pods (`pods/<name|*>/<metric>`): one item per Ready pod the name and labelSelector
 *   pick that has a value; a named pod without one is a 404 saying why.
 * - Deployment (`deployments.apps/<name>/<metric>`, the HPA's Object form): one item, the
 *   mean of the per-pod values over its selector's Ready pods, truncated once to whole
 *   percent as the native HPA does with its aggregate; 404 when the Deployment is
 *   missing or none of its pods has a value.
 *
 * Utilization values are whole percents (ADR 0023); usage values keep their quantities.
 */
export function answerMetricQuery(
  query: MetricQuery,
  inputs: MetricInputs,
): MetricAnswer {
  const observations: MetricObservations = {
    originals: {},
    malformedAnnotations: [],
    currentRequests: [],
  };
  const fail = (
    code: 404 | 503,
    message: string,
    more: Partial<MetricObservations> = {},
  ): MetricAnswer => ({
    code,
    body: Buffer.from(
      JSON.stringify(
        status(code, code === 404 ? 'NotFound' : 'ServiceUnavailable', message),
      ),
    ),
    items: 0,
    observations: { ...observations, ...more },
  });
  const { namespace, metric, target } = query;

  let picked: PodPicker;
  if (target.kind === 'pods') {
    picked = (name, labels) =>
      (target.name === '*' || name === target.name) &&
      target.labels.matches(labels);
  } else {
    const read = inputs.deployment ?? { notFound: true };
    if ('notFound' in read)
      return fail(
        404,
        `${metricNotFoundMessage(metric, DEPLOYMENTS, target.name)}: deployment ${namespace}/${target.name} not found`,
      );
    if ('failure' in read)
      return fail(
        503,
        `unable to read deployment ${namespace}/${target.name}: ${read.failure}`,
        { deploymentFailure: read.failure },
      );
    const selector = compileLabelSelector(read.selector);
    picked = (_name, labels) => selector.matches(labels);
  }
  const pods = inputs.pods(picked);

  if ('failure' in inputs.usage)
    return fail(
      503,
      `unable to read pod usage for namespace ${namespace} from ${inputs.sourceName}: ${inputs.usage.failure}`,
      { sourceFailure: inputs.usage.failure },
    );
  const { values, reasons } = measure(
    pods,
    inputs.usage.usage,
    query,
    observations,
  );
  const timestamp = metricTimestamp(inputs.now);
  const utilization = isUtilizationMetric(metric);
  const item = (
    describedObject: DescribedObject,
    value: number,
  ): MetricValue => ({
    describedObject,
    metric,
    selector: query.metricSelector,
    windowSeconds: WINDOW_SECONDS,
    value: utilization ? wholePercent(value) : value,
  });
  const why = reasons.length > 0 ? `: ${reasons.join('; ')}` : '';

  if (target.kind === 'deployment') {
    if (values.length === 0)
      return fail(
        404,
        `${metricNotFoundMessage(metric, DEPLOYMENTS, target.name, query.metricLabelSelector)}: no Ready pod of deployment ${namespace}/${target.name} has a value${pods.length === 0 ? ' (no pod matches its selector)' : why}`,
      );
    const mean =
      values.reduce((sum, { value }) => sum + value, 0) / values.length;
    return {
      code: 200,
      body: metricValueList(query.version, timestamp, [
        item(describedDeployment(namespace, target.name), mean),
      ]),
      items: 1,
      observations,
    };
  }
  if (target.name !== '*' && values.length === 0)
    return fail(
      404,
      `${metricNotFoundMessage(metric, 'pods', target.name, query.metricLabelSelector)}${why}`,
    );
  const stamped = stampedItemList(
    query.version,
    timestamp,
    values.map(({ pod, value, measured }) => {
      measured.item ??= itemBytes(
        query.version,
        item(describedPod(pod.namespace, pod.name), value),
      );
      return measured.item;
    }),
  );
  return {
    code: 200,
    body: stamped.body,
    stamped,
    items: values.length,
    observations:
      values.length === 0 && reasons.length > 0
        ? { ...observations, noValue: reasons.slice(0, REASONS_SHOWN) }
        : observations,
  };
}

/** `now` as an item's timestamp: RFC 3339 to the second, as `metav1.Time` marshals. */
export function metricTimestamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** A pod with a value, and what was worked out for it. */
interface Measured {
  pod: PodForMetrics;
  value: number;
  measured: PodMeasure;
}

/** Each pod's exact value (or the reason it has none), noting what the app counts. */
function measure(
  pods: readonly PodForMetrics[],
  usage: ReadonlyMap<string, readonly ContainerUsage[]>,
  query: MetricQuery,
  observations: MetricObservations,
): { values: Measured[]; reasons: string[] } {
  const values: Measured[] = [];
  const reasons: string[] = [];
  const measureQuery: MeasureQuery = {
    // The metricLabelSelector text decides the container and the selector items echo.
    key: `${query.version} ${query.metric} ${query.metricLabelSelector ?? ''}`,
    metric: query.metric,
    container: query.container,
  };
  const original = query.metric.includes('original');
  const { originals } = observations;
  for (const pod of pods) {
    const measured = rememberedPodMeasure(
      pod,
      usage.get(pod.name),
      measureQuery,
    );
    const { result } = measured;
    originals[result.originals] = (originals[result.originals] ?? 0) + 1;
    if (result.malformedAnnotation !== undefined)
      observations.malformedAnnotations.push({
        namespace: pod.namespace,
        pod: pod.name,
        annotation: result.malformedAnnotation,
        fallback: result.originals,
      });
    else if (result.originals === 'current' && original)
      observations.currentRequests.push({
        namespace: pod.namespace,
        pod: pod.name,
      });
    if (result.value === undefined)
      reasons.push(`${pod.name}: ${result.reason ?? 'no value'}`);
    else values.push({ pod, value: result.value, measured });
  }
  return { values, reasons };
}
