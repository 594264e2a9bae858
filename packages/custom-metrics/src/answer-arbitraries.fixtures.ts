import fc from 'fast-check';
import { annotationFor, container, pod, used } from './pod.fixtures.js';
import type { ContainerUsage } from './pod-for-metrics.js';

/** The pod names the arbitraries below use, so that changes and reads meet the same pods. */
export const POD_NAMES = ['a-1', 'a-2', 'b-1'];

/**
 * A pod view of `shop` as the app makes one: labelled `app: a` or `b`, Ready or not, an
 * app container whose request may be unusable, annotated by the webhook or not, with or
 * without a native sidecar (counted in the pod's metrics).
 */
export const anyView = fc
  .record({
    name: fc.constantFrom(...POD_NAMES),
    app: fc.constantFrom('a', 'b'),
    ready: fc.boolean(),
    annotated: fc.boolean(),
    request: fc.constantFrom('400m', '1', '0', 'bad'),
    sidecar: fc.boolean(),
  })
  .map(({ name, app, ready, annotated, request, sidecar }) => {
    const main = container('app', { cpu: request, memory: '100Mi' });
    const proxy = {
      ...container('proxy', { cpu: '100m' }, { cpu: '200m' }),
      restartPolicy: 'Always',
    };
    return pod([main], {
      name,
      labels: { app },
      ready,
      annotations: annotated ? annotationFor([main, proxy]) : {},
      initContainers: sidecar ? [proxy] : [],
    });
  });

/** One pod's entry of a usage read: its app container and its sidecar. */
export const anyPodUsage = fc
  .tuple(fc.constantFrom(...POD_NAMES), fc.nat(900), fc.nat(90))
  .map(([name, app, proxy]) => [
    name,
    [used('app', app, 2 ** 20), used('proxy', proxy, 2 ** 10)],
  ]) as fc.Arbitrary<[string, ContainerUsage[]]>;

/** A metric read of `shop`: its version, object, metric and query string. */
export const anyMetricRequest = fc.record({
  version: fc.constantFrom('v1beta1', 'v1beta2'),
  target: fc.constantFrom('pods/*', 'pods/a-1', 'deployments.apps/web'),
  metric: fc.constantFrom(
    'cpu_utilization_of_original_request',
    'cpu_utilization_of_limit',
    'memory_usage',
  ),
  query: fc.record(
    {
      labelSelector: fc.constantFrom('app=a', 'app!=a'),
      metricLabelSelector: fc.constantFrom('container=app', 'container=proxy'),
    },
    { requiredKeys: [] },
  ),
});

/** A change the app sees: a pod changed (a new view, as the app makes one) or deleted, a pod's usage read anew. */
export const anyChange = fc.oneof(
  anyView.map((changed) => ({ kind: 'pod' as const, changed })),
  fc
    .constantFrom(...POD_NAMES)
    .map((name) => ({ kind: 'delete' as const, name })),
  anyPodUsage.map((read) => ({ kind: 'usage' as const, read })),
);
