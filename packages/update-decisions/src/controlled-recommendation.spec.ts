import fc from 'fast-check';
import type { ContainerResourcePolicy, ResourceList } from '@tandem/vpa-api';
import { controlledEntries } from './controlled-recommendation.js';
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
});
