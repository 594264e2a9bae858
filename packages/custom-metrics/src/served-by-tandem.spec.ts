import fc from 'fast-check';
import { CUSTOM_METRICS_VERSIONS } from './api-group.js';
import { apiResourceList } from './discovery.js';
import { parseMetricPath } from './metric-path.js';
import { isServedByTandem } from './served-by-tandem.js';

const V2 = '/apis/custom.metrics.k8s.io/v1beta2';
const served = (path: string) => isServedByTandem(parseMetricPath(path));

describe('isServedByTandem', () => {
  it.each([
    '/apis',
    '/apis/custom.metrics.k8s.io',
    V2,
    '/apis/other.group/v1/x',
    `${V2}/namespaces/shop/pods/*/cpu_utilization_of_limit`,
    `${V2}/namespaces/shop/pods/web-0/memory_usage`,
  ])('keeps %s', (path) => {
    expect(served(path)).toBe(true);
  });

  it.each([
    `${V2}/namespaces/shop/pods/*/http_requests`,
    `${V2}/namespaces/shop/services/web/http_requests`,
    `${V2}/namespaces/shop/metrics/queue_depth`,
    `${V2}/nodes/node-1/cpu_usage`,
    `${V2}/namespaces/shop/services/web/cpu_usage`,
  ])('forwards %s', (path) => {
    expect(served(path)).toBe(false);
  });

  it('serves exactly the reads its own discovery lists, with their scope', () => {
    for (const version of CUSTOM_METRICS_VERSIONS) {
      const { resources } = apiResourceList(version) as {
        resources: { name: string; namespaced: boolean }[];
      };
      for (const { name, namespaced } of resources) {
        const [resource = '', metric = ''] = name.split('/');
        const prefix = `/apis/custom.metrics.k8s.io/${version}`;
        const namespacedPath = `${prefix}/namespaces/shop/${resource}/x/${metric}`;
        const rootPath = `${prefix}/${resource}/x/${metric}`;
        expect([served(namespacedPath), served(rootPath)]).toEqual([
          namespaced,
          !namespaced,
        ]);
      }
    }
  });

  it('forwards every metric name Tandem does not list', () => {
    const listed = new Set(
      (
        apiResourceList('v1beta2') as { resources: { name: string }[] }
      ).resources.map((r) => r.name),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('pods', 'services', 'deployments.apps', 'ingresses'),
        fc.stringMatching(/^[a-z_]{1,20}$/),
        (resource, metric) => {
          expect(served(`${V2}/namespaces/ns/${resource}/name/${metric}`)).toBe(
            listed.has(`${resource}/${metric}`),
          );
        },
      ),
    );
  });
});
