import fc from 'fast-check';
import {
  containersOf,
  historyValues,
  resourceKey,
  RESOURCE_LINES,
} from './history-values.js';
import type { WorkloadSummary } from './workload-summary.js';

const base: WorkloadSummary = {
  namespace: 'shop',
  kind: 'Deployment',
  name: 'web',
  vpa: null,
  hpa: null,
  nativeEquivalentReplicas: null,
  nativeEquivalentReason: 'no HPA scales this workload',
  pods: 0,
  declared: {},
  current: {},
  usage: {},
};

describe('resourceKey', () => {
  it('joins container, resource and line with bars', () => {
    expect(resourceKey('app', 'cpu', 'usage')).toBe('app|cpu|usage');
    expect(resourceKey('app', 'memory', 'declared')).toBe(
      'app|memory|declared',
    );
  });
});

describe('containersOf', () => {
  it('lists the containers of resource keys once each, in first-seen order', () => {
    expect(
      containersOf([
        'replicas',
        'sidecar|cpu|usage',
        'native',
        'app|cpu|usage',
        'sidecar|memory|request',
        'app|memory|target',
      ]),
    ).toEqual(['sidecar', 'app']);
  });

  it('ignores keys without a container before the bar', () => {
    expect(containersOf(['replicas', 'native', '|cpu|usage'])).toEqual([]);
  });
});

describe('historyValues', () => {
  it('records nothing for a workload with no HPA, VPA or pods', () => {
    expect(historyValues(base)).toEqual({});
  });

  it('records the HPA replicas and the native figure when there are ones', () => {
    const hpa = {
      name: 'web',
      currentReplicas: 7,
      desiredReplicas: 9,
      minReplicas: 1,
      maxReplicas: 20,
      metric: null,
    };
    expect(
      historyValues({ ...base, hpa, nativeEquivalentReplicas: 11 }),
    ).toEqual({ replicas: 7, native: 11 });
    expect(
      historyValues({
        ...base,
        hpa,
        nativeEquivalentReason: 'the workload is scaled to zero',
      }),
    ).toEqual({ replicas: 7 });
  });

  it('records each line of each container, and only the values it has', () => {
    const values = historyValues({
      ...base,
      vpa: {
        name: 'web',
        mode: 'Recreate',
        strategy: null,
        target: { app: { cpuMillicores: 250, memoryBytes: 300 } },
        lowerBound: { app: { cpuMillicores: 200 } },
        upperBound: { app: { memoryBytes: 900 } },
      },
      declared: { app: { cpuMillicores: 500, memoryBytes: 1000 } },
      current: {
        app: { cpuMillicores: 260, memoryBytes: 310 },
        sidecar: { cpuMillicores: 10 },
      },
      usage: { app: { cpuMillicores: 120.5, memoryBytes: 250 } },
    });
    expect(values).toEqual({
      'app|cpu|declared': 500,
      'app|memory|declared': 1000,
      'app|cpu|request': 260,
      'app|memory|request': 310,
      'sidecar|cpu|request': 10,
      'app|cpu|target': 250,
      'app|memory|target': 300,
      'app|cpu|lower': 200,
      'app|memory|upper': 900,
      'app|cpu|usage': 120.5,
      'app|memory|usage': 250,
    });
    expect(containersOf(Object.keys(values))).toEqual(['app', 'sidecar']);
  });

  it('names, for any summary, only keys its plots read back', () => {
    const resources = fc.record(
      {
        cpuMillicores: fc.nat(),
        memoryBytes: fc.nat(),
      },
      { requiredKeys: [] },
    );
    const perContainer = fc.dictionary(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
      resources,
      { maxKeys: 4 },
    );
    fc.assert(
      fc.property(
        perContainer,
        perContainer,
        perContainer,
        (declared, current, usage) => {
          const values = historyValues({ ...base, declared, current, usage });
          const lines: readonly string[] = RESOURCE_LINES;
          for (const key of Object.keys(values)) {
            const [container = '', resource = '', line = ''] = key.split('|');
            expect(['cpu', 'memory']).toContain(resource);
            expect(lines).toContain(line);
            expect(
              Object.keys(declared).includes(container) ||
                Object.keys(current).includes(container) ||
                Object.keys(usage).includes(container),
            ).toBe(true);
          }
        },
      ),
    );
  });
});
