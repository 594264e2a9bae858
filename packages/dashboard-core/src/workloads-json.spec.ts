import type { FleetSampler } from './fleet-sampler.js';
import type { WorkloadSummary } from './workload-summary.js';
import { prepareWorkloadsJson, workloadsJson } from './workloads-json.js';

const summary = (i: number): WorkloadSummary => ({
  namespace: `team-${i % 7}`,
  kind: 'Deployment',
  name: `service-${i}`,
  vpa: null,
  hpa: null,
  nativeEquivalentReplicas: null,
  nativeEquivalentReason: `no HPA scales "service-${i}"`,
  pods: i % 4,
  declared: { app: { cpuMillicores: 100 + i, memoryBytes: 2 ** 28 } },
  current: {},
  usage: {},
});

const samplerOf = (
  summaries: WorkloadSummary[],
  lastSampleMs: number | undefined,
): FleetSampler =>
  ({
    summaries: () => summaries,
    lastSampleMs: () => lastSampleMs,
  }) as Partial<FleetSampler> as FleetSampler;

describe('prepareWorkloadsJson', () => {
  it.each([0, 1, 200, 450])(
    'writes, for %i workloads, the JSON workloadsJson writes, and leaves it for workloadsJson',
    async (count) => {
      const summaries = Array.from({ length: count }, (_, i) => summary(i));
      const expected = JSON.stringify({
        sampledAt: '2026-11-27T06:00:00.000Z',
        workloads: summaries,
      });
      const sampler = samplerOf(summaries, Date.UTC(2026, 10, 27, 6));
      const prepared = await prepareWorkloadsJson(sampler);
      expect(prepared).toBe(expected);
      expect(workloadsJson(sampler)).toBe(prepared);
      expect(workloadsJson(samplerOf(summaries, undefined))).toBe(
        JSON.stringify({ sampledAt: null, workloads: summaries }),
      );
    },
  );
});
