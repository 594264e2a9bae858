import { compileLabelSelector, type LabelSelector } from '@tandem/vpa-api';
import { DEPLOYMENTS } from './discovery.js';
import { isUtilizationMetric } from './metric-names.js';
import type { MetricObservations } from './metric-observations.js';
import type { MetricAnswer, MetricQuery } from './metric-plan.js';
import { wholePercent } from './metric-quantity.js';
import {
  describedDeployment,
  describedPod,
  metricValueList,
  type DescribedObject,
} from './metric-value-list.js';
import { rememberedPodMetric } from './remembered-pod-metric.js';
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

/** Each view's described object, made once, so its JSON is made once too. */
const describedPods = new WeakMap<PodForMetrics, DescribedObject>();

function describedPodOf(pod: PodForMetrics): DescribedObject {
  let described = describedPods.get(pod);
  if (described === undefined) {
    described = describedPod(pod.namespace, pod.name);
    describedPods.set(pod, described);
  }
  return described;
}

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
 * `inputs`. What it works out per pod is remembered per pod view and usage read (see
 * `rememberedPodMetric`), so an app that keeps its views answers the HPA's repeated
 * queries without measuring again; the same inputs still give the same answer.
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
  const timestamp = inputs.now.toISOString().replace(/\.\d+Z$/, 'Z');
  const utilization = isUtilizationMetric(metric);
  const item = (describedObject: DescribedObject, value: number) => ({
    describedObject,
    metric,
    selector: query.metricSelector,
    timestamp,
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
      body: metricValueList(query.version, [
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
  return {
    code: 200,
    body: metricValueList(
      query.version,
      values.map(({ pod, value }) => item(describedPodOf(pod), value)),
    ),
    items: values.length,
    observations:
      values.length === 0 && reasons.length > 0
        ? { ...observations, noValue: reasons.slice(0, REASONS_SHOWN) }
        : observations,
  };
}

/** Each pod's exact value (or the reason it has none), noting what the app counts. */
function measure(
  pods: readonly PodForMetrics[],
  usage: ReadonlyMap<string, readonly ContainerUsage[]>,
  query: MetricQuery,
  observations: MetricObservations,
): { values: { pod: PodForMetrics; value: number }[]; reasons: string[] } {
  const values: { pod: PodForMetrics; value: number }[] = [];
  const reasons: string[] = [];
  for (const pod of pods) {
    const result = rememberedPodMetric(
      pod,
      usage.get(pod.name),
      query.metric,
      query.container,
    );
    const ref = { namespace: pod.namespace, pod: pod.name };
    observations.originals[result.originals] =
      (observations.originals[result.originals] ?? 0) + 1;
    if (result.malformedAnnotation !== undefined)
      observations.malformedAnnotations.push({
        ...ref,
        annotation: result.malformedAnnotation,
        fallback: result.originals,
      });
    else if (
      result.originals === 'current' &&
      query.metric.includes('original')
    )
      observations.currentRequests.push(ref);
    if (result.value === undefined)
      reasons.push(`${pod.name}: ${result.reason ?? 'no value'}`);
    else values.push({ pod, value: result.value });
  }
  return { values, reasons };
}
