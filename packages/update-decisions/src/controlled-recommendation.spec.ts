import fc from 'fast-check';
import type {
  ContainerResourcePolicy,
  LimitRange,
  ResourceList,
} from '@tandem/vpa-api';
import {
  controlledEntries,
  updaterRecommendation,
} from './controlled-recommendation.js';
import { container, entry, podWith, vpaWith } from './updater.fixtures.js';

const resources = fc.subarray(['cpu', 'memory']);
const list = (names: string[]): ResourceList =>
  Object.fromEntries(names.map((name) => [name, '100m']));
const pod = resources.map((podLevel) =>
  podWith([container('app', { cpu: '50m', memory: '64Mi' })], {
    ...(podLevel.length > 0 && { resources: { requests: list(podLevel) } }),
  }),
);
const vpa = fc
  .record({
    mode: fc.constantFrom('Auto', 'Off'),
    controlled: resources,
  })
  .map(({ mode, controlled }) =>
    vpaWith(undefined, {
      policies: [
        {
          containerName: 'app',
          mode,
          controlledResources: controlled,
        } as ContainerResourcePolicy,
      ],
    }),
  );

describe('controlledEntries', () => {
  it('answers a repeated question about one recommendation object as it answers a fresh one', () => {
    const recommendation = {
      containerRecommendations: [
        entry('app', list(['cpu', 'memory']), {
          lowerBound: list(['cpu', 'memory']),
        }),
      ],
    };
    fc.assert(
      fc.property(fc.array(fc.tuple(pod, vpa), { minLength: 1 }), (asked) => {
        for (const [p, v] of asked) {
          const fresh = controlledEntries(
            p,
            v,
            structuredClone(recommendation),
          );
          expect(controlledEntries(p, v, recommendation)).toEqual(fresh);
          expect(controlledEntries(p, v, recommendation)).toEqual(fresh);
        }
      }),
    );
  });

  it('leaves out the entry a Pod LimitRange gives a container in mode Off, as upstream counts it', () => {
    const cpu = (value: string) => ({ cpu: value });
    const pod = podWith([
      container('app', cpu('100m'), cpu('100m')),
      container('side', cpu('100m'), cpu('100m')),
    ]);
    const vpa = vpaWith([entry('app', cpu('100m'))], {
      policies: [{ containerName: 'side', mode: 'Off' }],
    });
    const podMinimum: LimitRange = {
      metadata: { name: 'pod-minimum', namespace: 'demo' },
      spec: { limits: [{ type: 'Pod', min: cpu('1') }] },
    };
    const processed = updaterRecommendation(pod, vpa, [podMinimum]);
    // upstream's insertRequestsForMissingRecommendations (pkg/utils/vpa/capping.go) adds
    // `side` with its requests, then both scale up to the pod's minimum
    expect(processed?.containerRecommendations).toEqual([
      entry('app', cpu('500m')),
      entry('side', cpu('500m')),
    ]);
    expect(controlledEntries(pod, vpa, processed)).toEqual([
      entry('app', cpu('500m')),
    ]);
  });
});
