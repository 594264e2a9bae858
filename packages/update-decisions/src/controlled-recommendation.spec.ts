import fc from 'fast-check';
import type {
  ContainerResourcePolicy,
  LimitRange,
  RecommendedContainerResources,
  ResourceList,
} from '@tandem/vpa-api';
import {
  applicableRecommendation,
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

  it('narrows as applicableRecommendation narrows a VPA holding the entries, for any entries, policies and pod-level resources', () => {
    const names = fc.subarray(['cpu', 'memory', 'ephemeral-storage']);
    const maybeList = fc.option(names.map(list), { nil: undefined });
    const recommended = fc.record(
      {
        containerName: fc.constantFrom('app', 'side', 'gone'),
        target: maybeList,
        lowerBound: maybeList,
        upperBound: maybeList,
        uncappedTarget: maybeList,
      },
      { requiredKeys: ['containerName'] },
    );
    const policy = fc.record(
      {
        containerName: fc.constantFrom('app', 'side', '*'),
        mode: fc.constantFrom('Auto', 'Off'),
        controlledResources: names,
      },
      { requiredKeys: ['containerName'] },
    );
    const declared = fc.record(
      { requests: names.map(list), limits: names.map(list) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.array(recommended, { maxLength: 4 }),
        fc.array(policy, { maxLength: 3 }),
        fc.option(declared, { nil: undefined }),
        (entries, policies, podLevel) => {
          const p = podWith(
            [container('app', { cpu: '50m' }), container('side')],
            podLevel === undefined ? {} : { resources: podLevel },
          );
          const v = vpaWith(undefined, {
            policies: policies as ContainerResourcePolicy[],
          });
          const recommendation = {
            containerRecommendations:
              entries as RecommendedContainerResources[],
          };
          const expected = applicableRecommendation(p, {
            ...v,
            status: { recommendation: structuredClone(recommendation) },
          }).status?.recommendation?.containerRecommendations;
          expect(controlledEntries(p, v, recommendation)).toEqual(expected);
        },
      ),
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
