import type { PerContainer } from './observed.js';
import { recommendedYaml } from './recommended-yaml.js';
import type { WorkloadSummary } from './workload-summary.js';

const withTarget = (target: PerContainer | null): WorkloadSummary => ({
  namespace: 'shop',
  kind: 'Deployment',
  name: 'web',
  vpa:
    target === null
      ? null
      : {
          name: 'web-vpa',
          mode: 'Recreate',
          strategy: null,
          target,
          lowerBound: {},
          upperBound: {},
        },
  hpa: null,
  nativeEquivalentReplicas: null,
  nativeEquivalentReason: 'no HPA scales this workload',
  pods: 0,
  declared: {},
  current: {},
  usage: {},
});

describe('recommendedYaml', () => {
  it("writes the VPA's target as container resources, quantities as kubectl prints them", () => {
    expect(
      recommendedYaml(
        withTarget({
          app: { cpuMillicores: 250, memoryBytes: 268_435_456 },
          sidecar: { cpuMillicores: 2000, memoryBytes: 64 * 1024 * 1024 },
          'log-shipper': { cpuMillicores: 1500, memoryBytes: 628_694_953 },
        }),
      ),
    ).toBe(
      [
        "# shop/Deployment/web: the VPA's target",
        'containers:',
        '  - name: app',
        '    resources:',
        '      requests:',
        '        cpu: 250m',
        '        memory: 256Mi',
        '  - name: sidecar',
        '    resources:',
        '      requests:',
        '        cpu: 2',
        '        memory: 64Mi',
        '  - name: log-shipper',
        '    resources:',
        '      requests:',
        '        cpu: 1500m',
        '        memory: 628694953',
        '',
      ].join('\n'),
    );
  });

  it('leaves out a resource the target does not name', () => {
    expect(
      recommendedYaml(
        withTarget({
          cpu: { cpuMillicores: 10 },
          memory: { memoryBytes: 1024 },
        }),
      ),
    ).toBe(
      [
        "# shop/Deployment/web: the VPA's target",
        'containers:',
        '  - name: cpu',
        '    resources:',
        '      requests:',
        '        cpu: 10m',
        '  - name: memory',
        '    resources:',
        '      requests:',
        '        memory: 1Ki',
        '',
      ].join('\n'),
    );
  });

  it('is undefined without a VPA or before its first recommendation', () => {
    expect(recommendedYaml(withTarget(null))).toBeUndefined();
    expect(recommendedYaml(withTarget({}))).toBeUndefined();
  });
});
