import type { FleetSampler, WorkloadSummary } from '@tandem/dashboard-core';
import { Registry } from '@tandem/telemetry';
import { exportHistory } from './history-export.js';

const web = (replicas: number): WorkloadSummary => ({
  namespace: 'shop',
  kind: 'Deployment',
  name: 'web',
  vpa: null,
  hpa: {
    name: 'web-hpa',
    currentReplicas: replicas,
    desiredReplicas: replicas,
    minReplicas: 1,
    maxReplicas: 10,
    metric: {
      type: 'Resource',
      name: 'cpu',
      targetType: 'Utilization',
      target: 60,
    },
  },
  nativeEquivalentReplicas: 9,
  nativeEquivalentReason: null,
  pods: replicas,
  declared: { app: { cpuMillicores: 500, memoryBytes: 268_435_456 } },
  current: { app: { cpuMillicores: 250, memoryBytes: 268_435_456 } },
  usage: { app: { cpuMillicores: 200 } },
});

describe('exportHistory', () => {
  it("exports each workload's last sample at every scrape, and forgets a workload gone", async () => {
    let summaries: WorkloadSummary[] = [web(4)];
    const registry = new Registry();
    exportHistory(registry, {
      summaries: () => summaries,
    } as Partial<FleetSampler> as FleetSampler);
    const lines = async () =>
      (await registry.metrics())
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'));
    const W = 'namespace="shop",kind="Deployment",workload="web"';
    expect(await lines()).toEqual([
      `tandem_dashboard_workload_replicas{${W},replicas="running"} 4`,
      `tandem_dashboard_workload_replicas{${W},replicas="native_equivalent"} 9`,
      `tandem_dashboard_container_cpu_cores{${W},container="app",line="declared"} 0.5`,
      `tandem_dashboard_container_cpu_cores{${W},container="app",line="request"} 0.25`,
      `tandem_dashboard_container_cpu_cores{${W},container="app",line="usage"} 0.2`,
      `tandem_dashboard_container_memory_bytes{${W},container="app",line="declared"} 268435456`,
      `tandem_dashboard_container_memory_bytes{${W},container="app",line="request"} 268435456`,
    ]);
    summaries = [web(6)];
    expect((await lines())[0]).toBe(
      `tandem_dashboard_workload_replicas{${W},replicas="running"} 6`,
    );
    summaries = [];
    expect(await lines()).toEqual([]);
  });
});
