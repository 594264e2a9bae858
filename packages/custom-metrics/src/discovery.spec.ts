import { apiGroup, apiGroupList, apiResourceList } from './discovery.js';
import { METRIC_NAMES } from './metric-names.js';

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
    'lists pods/<metric> for every metric in %s',
    (version) => {
      expect(apiResourceList(version)).toEqual({
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `custom.metrics.k8s.io/${version}`,
        resources: METRIC_NAMES.map((metric) => ({
          name: `pods/${metric}`,
          singularName: '',
          namespaced: true,
          kind: 'MetricValueList',
          verbs: ['get'],
        })),
      });
    },
  );

  it('names the six metrics of the contract', () => {
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
    ]);
  });
});
