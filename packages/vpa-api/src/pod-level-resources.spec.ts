import {
  podLevelResourceNames,
  withoutPodLevelResources,
} from './pod-level-resources.js';
import type {
  Pod,
  ResourceRequirements,
  VerticalPodAutoscaler,
} from './types.js';

function podWith(resources?: ResourceRequirements): Pod {
  return {
    spec: {
      containers: [{ name: 'app' }],
      ...(resources && { resources }),
    },
  };
}

const vpa: VerticalPodAutoscaler = {
  metadata: { name: 'vpa', namespace: 'default' },
  spec: { targetRef: { kind: 'Deployment', name: 'app' } },
  status: {
    recommendation: {
      containerRecommendations: [
        {
          containerName: 'app',
          target: { cpu: '2', memory: '200Mi' },
          lowerBound: { cpu: '1', memory: '100Mi' },
          upperBound: { cpu: '4', memory: '400Mi' },
          uncappedTarget: { cpu: '2', memory: '200Mi' },
        },
      ],
    },
  },
};

describe('podLevelResourceNames', () => {
  it.each([
    ['no pod-level resources', undefined, []],
    ['requests only', { requests: { cpu: '1' } }, ['cpu']],
    ['limits only', { limits: { memory: '1Gi' } }, ['memory']],
    [
      'both, sorted and once each',
      { requests: { memory: '1Gi', cpu: '1' }, limits: { cpu: '1' } },
      ['cpu', 'memory'],
    ],
    ['empty maps', { requests: {}, limits: {} }, []],
  ])('%s', (_, resources, expected) => {
    expect(podLevelResourceNames(podWith(resources))).toEqual(expected);
  });
});

describe('withoutPodLevelResources', () => {
  it('returns the same VPA for a pod without pod-level resources', () => {
    expect(withoutPodLevelResources(vpa, podWith())).toBe(vpa);
  });

  it('takes a pod-level resource out of target, bounds and uncapped target', () => {
    const narrowed = withoutPodLevelResources(
      vpa,
      podWith({ limits: { cpu: '1' } }),
    );
    expect(narrowed.status?.recommendation?.containerRecommendations).toEqual([
      {
        containerName: 'app',
        target: { memory: '200Mi' },
        lowerBound: { memory: '100Mi' },
        upperBound: { memory: '400Mi' },
        uncappedTarget: { memory: '200Mi' },
      },
    ]);
    expect(
      vpa.status?.recommendation?.containerRecommendations?.[0]?.target,
    ).toEqual({ cpu: '2', memory: '200Mi' });
  });

  it('leaves a VPA without a recommendation as it is', () => {
    const bare = { ...vpa, status: {} };
    expect(
      withoutPodLevelResources(bare, podWith({ requests: { cpu: '1' } })),
    ).toBe(bare);
  });
});
