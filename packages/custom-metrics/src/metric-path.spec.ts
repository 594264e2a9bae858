import fc from 'fast-check';
import { parseMetricPath, type MetricRequest } from './metric-path.js';

const V2 = '/apis/custom.metrics.k8s.io/v1beta2';
const V1 = '/apis/custom.metrics.k8s.io/v1beta1';

describe('parseMetricPath', () => {
  it.each<[string, MetricRequest]>([
    ['/apis', { kind: 'discovery-root' }],
    ['/apis/', { kind: 'discovery-root' }],
    ['/apis/custom.metrics.k8s.io', { kind: 'discovery-group' }],
    ['/apis/custom.metrics.k8s.io/', { kind: 'discovery-group' }],
    [V2, { kind: 'discovery-version', version: 'v1beta2' }],
    [`${V1}/`, { kind: 'discovery-version', version: 'v1beta1' }],
  ])('routes discovery %s', (path, expected) => {
    expect(parseMetricPath(path)).toEqual(expected);
  });

  it.each<[string, MetricRequest]>([
    [
      `${V2}/namespaces/shop/pods/*/cpu_utilization_of_limit`,
      {
        kind: 'pods',
        version: 'v1beta2',
        namespace: 'shop',
        name: '*',
        metric: 'cpu_utilization_of_limit',
      },
    ],
    [
      `${V2}/namespaces/shop/pods/%2A/cpu_usage`,
      {
        kind: 'pods',
        version: 'v1beta2',
        namespace: 'shop',
        name: '*',
        metric: 'cpu_usage',
      },
    ],
    [
      `${V1}/namespaces/shop/pods/%2a/memory_usage`,
      {
        kind: 'pods',
        version: 'v1beta1',
        namespace: 'shop',
        name: '*',
        metric: 'memory_usage',
      },
    ],
    [
      `${V2}/namespaces/shop/pods/web-7d9c-abcde/cpu_usage`,
      {
        kind: 'pods',
        version: 'v1beta2',
        namespace: 'shop',
        name: 'web-7d9c-abcde',
        metric: 'cpu_usage',
      },
    ],
  ])('routes pods %s', (path, expected) => {
    expect(parseMetricPath(path)).toEqual(expected);
  });

  it.each<[string, MetricRequest]>([
    [
      `${V2}/namespaces/shop/deployments.apps/web/cpu_usage`,
      {
        kind: 'other-object',
        version: 'v1beta2',
        namespace: 'shop',
        resource: 'deployments.apps',
        name: 'web',
        metric: 'cpu_usage',
      },
    ],
    [
      `${V2}/namespaces/shop/services/*/requests`,
      {
        kind: 'other-object',
        version: 'v1beta2',
        namespace: 'shop',
        resource: 'services',
        name: '*',
        metric: 'requests',
      },
    ],
    [
      `${V2}/namespaces/shop/metrics/queue_depth`,
      {
        kind: 'other-object',
        version: 'v1beta2',
        resource: 'namespaces',
        name: 'shop',
        metric: 'queue_depth',
      },
    ],
    [
      `${V1}/nodes/node-1/cpu_usage`,
      {
        kind: 'other-object',
        version: 'v1beta1',
        resource: 'nodes',
        name: 'node-1',
        metric: 'cpu_usage',
      },
    ],
    [
      `${V2}/nodes/%2A/cpu_usage`,
      {
        kind: 'other-object',
        version: 'v1beta2',
        resource: 'nodes',
        name: '*',
        metric: 'cpu_usage',
      },
    ],
    [
      // Three segments after the version are always a root-scoped object, as upstream
      // routes them: here the namespace object `shop`.
      `${V2}/namespaces/shop/queue_depth`,
      {
        kind: 'other-object',
        version: 'v1beta2',
        resource: 'namespaces',
        name: 'shop',
        metric: 'queue_depth',
      },
    ],
    [
      // Pods are namespaced; the caller answers "not found" for this object.
      `${V2}/pods/web/cpu_usage`,
      {
        kind: 'other-object',
        version: 'v1beta2',
        resource: 'pods',
        name: 'web',
        metric: 'cpu_usage',
      },
    ],
  ])('routes other objects %s', (path, expected) => {
    expect(parseMetricPath(path)).toEqual(expected);
  });

  it.each([
    '',
    '/',
    'apis',
    '/api',
    '/apis//custom.metrics.k8s.io',
    '/apis/external.metrics.k8s.io/v1beta1',
    '/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue_depth',
    '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods',
    '/apis/custom.metrics.k8s.io/v1',
    '/apis/custom.metrics.k8s.io/v1beta3/namespaces/shop/pods/*/cpu_usage',
    '/apis/custom.metrics.k8s.io/V1BETA2',
    `${V2}/namespaces`,
    `${V2}/namespaces/shop`,
    `${V2}/namespaces/shop/pods/*`,
    `${V2}/namespaces/shop/pods/*/cpu_usage/extra`,
    `${V2}/namespaces/shop/pods//cpu_usage`,
    `${V2}/namespaces/shop/pods/*/cpu_usage//`,
    `${V2}/nodes/node-1`,
    `${V2}/namespaces/shop/other/cpu_usage`,
    `${V2}/clusters/shop/pods/*/cpu_usage`,
    '/openapi/v2',
    '/healthz',
  ])('answers not-found for %j', (path) => {
    expect(parseMetricPath(path)).toEqual({ kind: 'not-found' });
  });

  const segment = fc
    .string({ minLength: 1, maxLength: 12 })
    .filter((text) => !text.includes('/'));

  it('routes every pods path back to its parts', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('v1beta1', 'v1beta2'),
        segment,
        segment,
        segment,
        (version, namespace, name, metric) => {
          const request = parseMetricPath(
            `/apis/custom.metrics.k8s.io/${version}/namespaces/${namespace}/pods/${name}/${metric}`,
          );
          expect(request).toEqual({
            kind: 'pods',
            version,
            namespace,
            name: /^%2a$/i.test(name) ? '*' : name,
            metric: /^%2a$/i.test(metric) ? '*' : metric,
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.string(), (path) => {
        expect(parseMetricPath(path).kind).toEqual(expect.any(String));
      }),
      { numRuns: 300 },
    );
  });
});
