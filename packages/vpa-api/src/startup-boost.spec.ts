import {
  boostAnnotationValue,
  boostedContainerNames,
  containerStartupBoost,
  hasStartupBoost,
  parseBoostAnnotation,
  startupBoostDurationSeconds,
} from './startup-boost.js';
import type { VerticalPodAutoscaler } from './types.js';

function vpa(
  spec: Partial<VerticalPodAutoscaler['spec']>,
): VerticalPodAutoscaler {
  return {
    metadata: { name: 'web', namespace: 'demo' },
    spec: { targetRef: { kind: 'Deployment', name: 'web' }, ...spec },
  };
}

const factor = (n: number, durationSeconds?: number) => ({
  cpu: { type: 'Factor' as const, factor: n, durationSeconds },
});

describe('startup boost policy', () => {
  it('finds a boost at pod level or in any container policy', () => {
    expect(hasStartupBoost(vpa({}))).toBe(false);
    expect(hasStartupBoost(vpa({ startupBoost: factor(2) }))).toBe(true);
    expect(
      hasStartupBoost(
        vpa({
          resourcePolicy: {
            containerPolicies: [
              { containerName: 'a', startupBoost: factor(2) },
            ],
          },
        }),
      ),
    ).toBe(true);
  });

  it('a container policy boost and duration override the pod-level ones', () => {
    const declared = vpa({
      startupBoost: factor(2, 30),
      resourcePolicy: {
        containerPolicies: [
          { containerName: 'a', startupBoost: factor(5, 5) },
          { containerName: 'b', startupBoost: factor(3) },
        ],
      },
    });
    expect(containerStartupBoost(declared, 'a')?.cpu?.factor).toBe(5);
    expect(containerStartupBoost(declared, 'c')?.cpu?.factor).toBe(2);
    expect(startupBoostDurationSeconds(declared, 'a')).toBe(5);
    // Upstream: the container's boost without its own duration takes the pod-level one.
    expect(startupBoostDurationSeconds(declared, 'b')).toBe(30);
    expect(startupBoostDurationSeconds(vpa({}), 'a')).toBe(0);
  });
});

describe('boost annotation', () => {
  it('records cpu and memory in canonical form, in upstream JSON shape', () => {
    expect(
      boostAnnotationValue({
        name: 'app',
        resources: {
          requests: { memory: '0.5Gi', cpu: '0.25', 'nvidia.com/gpu': '1' },
          limits: { cpu: '1000m' },
        },
      }),
    ).toBe('{"requests":{"cpu":"250m","memory":"512Mi"},"limits":{"cpu":"1"}}');
    expect(boostAnnotationValue({ name: 'app' })).toBe(
      '{"requests":{},"limits":{}}',
    );
  });

  it('reads it back, and says why a broken one cannot be used', () => {
    expect(
      parseBoostAnnotation('{"requests":{"cpu":"250m"},"limits":null}'),
    ).toEqual({ requests: { cpu: '250m' }, limits: {} });
    expect(parseBoostAnnotation('{"requests":')).toHaveProperty('problem');
    expect(parseBoostAnnotation('[]')).toEqual({
      problem: 'not a JSON object',
    });
    expect(parseBoostAnnotation('{"requests":{"cpu":5}}')).toEqual({
      problem: 'requests.cpu is not a quantity string',
    });
    expect(parseBoostAnnotation('{"limits":{"cpu":"lots"}}')).toHaveProperty(
      'problem',
    );
    expect(parseBoostAnnotation('{"limits":{"cpu":"-1"}}')).toEqual({
      problem: 'limits.cpu is negative: -1',
    });
  });

  it('lists the boosted containers of a pod', () => {
    expect(
      boostedContainerNames({
        'vpaCpuStartupBoost/app': '{}',
        vpaUpdates: 'x',
        'vpaCpuStartupBoost/side': '{}',
      }),
    ).toEqual(['app', 'side']);
  });
});
