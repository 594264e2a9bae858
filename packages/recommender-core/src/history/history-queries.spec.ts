import {
  historyQueries,
  type HistoryQuerySettings,
} from './history-queries.js';

/** Upstream's defaults (§4.6). */
const DEFAULTS: HistoryQuerySettings = {
  cadvisorJobName: 'kubernetes-cadvisor',
  cpuMetric: 'container_cpu_usage_seconds_total',
  memoryMetric: 'container_memory_working_set_bytes',
  historyResolution: '1h',
  podLabelsMetric: 'up{job="kubernetes-pods"}',
  containerNamespaceLabel: 'namespace',
  containerPodNameLabel: 'pod_name',
  containerNameLabel: 'name',
};

describe('historyQueries', () => {
  it('builds upstream queries from the default flags', () => {
    expect(historyQueries(DEFAULTS, undefined)).toEqual({
      cpu: 'rate(container_cpu_usage_seconds_total{job="kubernetes-cadvisor", pod_name=~".+", name!="POD", name!=""}[1h])',
      memory:
        'container_memory_working_set_bytes{job="kubernetes-cadvisor", pod_name=~".+", name!="POD", name!=""}',
      podLabels: 'up{job="kubernetes-pods"}',
    });
  });

  it('limits to --vpa-object-namespace and drops an empty job name', () => {
    const queries = historyQueries(
      {
        ...DEFAULTS,
        cadvisorJobName: '',
        cpuMetric: 'cpu_seconds',
        memoryMetric: 'mem_bytes',
        historyResolution: '5m',
        podLabelsMetric: 'kube_pod_labels[8d]',
        containerNamespaceLabel: 'ns',
        containerPodNameLabel: 'pod',
        containerNameLabel: 'container',
      },
      'shop',
    );
    expect(queries).toEqual({
      cpu: 'rate(cpu_seconds{pod=~".+", container!="POD", container!="", ns="shop"}[5m])',
      memory:
        'mem_bytes{pod=~".+", container!="POD", container!="", ns="shop"}',
      podLabels: 'kube_pod_labels[8d]',
    });
  });
});
