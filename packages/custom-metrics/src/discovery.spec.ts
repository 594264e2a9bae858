import { apiGroup, apiGroupList, apiResourceList } from './discovery.js';
import { METRIC_NAMES, UTILIZATION_METRICS } from './metric-names.js';

const GROUP = {
  name: 'custom.metrics.k8s.io',
  versions: [
    { groupVersion: 'custom.metrics.k8s.io/v1beta2', version: 'v1beta2' },
    { groupVersion: 'custom.metrics.k8s.io/v1beta1', version: 'v1beta1' },
  ],
  preferredVersion: {
    groupVersion: 'custom.metrics.k8s.io/v1beta2',
    version: 'v1beta2',
  },
};

describe('discovery documents', () => {
  it('lists the group with v1beta2 preferred', () => {
    expect(apiGroupList()).toEqual({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [GROUP],
    });
  });

  it('describes the group', () => {
    expect(apiGroup()).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      ...GROUP,
    });
  });

  it.each(['v1beta1', 'v1beta2'] as const)(
    'lists pods/<metric> for every metric and deployments.apps/<metric> for the utilizations in %s',
    (version) => {
      const resource = (name: string) => ({
        name,
        singularName: '',
        namespaced: true,
        kind: 'MetricValueList',
        verbs: ['get'],
      });
      expect(apiResourceList(version)).toEqual({
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `custom.metrics.k8s.io/${version}`,
        resources: [
          ...METRIC_NAMES.map((metric) => resource(`pods/${metric}`)),
          ...UTILIZATION_METRICS.map((metric) =>
            resource(`deployments.apps/${metric}`),
          ),
        ],
      });
    },
  );

  it('names the six metrics of the contract, and the four utilizations per Deployment', () => {
    const list = apiResourceList('v1beta2') as {
      resources: { name: string }[];
    };
    expect(list.resources.map((resource) => resource.name)).toEqual([
      'pods/cpu_utilization_of_limit',
      'pods/memory_utilization_of_limit',
      'pods/cpu_utilization_of_original_request',
      'pods/memory_utilization_of_original_request',
      'pods/cpu_usage',
      'pods/memory_usage',
      'deployments.apps/cpu_utilization_of_limit',
      'deployments.apps/memory_utilization_of_limit',
      'deployments.apps/cpu_utilization_of_original_request',
      'deployments.apps/memory_utilization_of_original_request',
    ]);
  });
});
