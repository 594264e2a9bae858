import { resourcePriority } from './resource-priority.js';
import { container, entry, podWith, vpaWith } from './updater.fixtures.js';
import type {
  RecommendedContainerResources,
  ResourceList,
} from '@tandem/vpa-api';

function priorityOf(
  requests: ResourceList,
  recommendation: RecommendedContainerResources,
) {
  const vpa = vpaWith([recommendation]);
  return resourcePriority(
    podWith([container('app', requests)]),
    vpa,
    vpa.status?.recommendation,
  );
}

describe('resourcePriority', () => {
  describe('golden vectors (reference §8 vector 21)', () => {
    it.each([
      ['cpu 2 → 10', { cpu: '2' }, { cpu: '10' }, { diff: 4, scaleUp: true }],
      ['cpu 4 → 2', { cpu: '4' }, { cpu: '2' }, { diff: 0.5, scaleUp: false }],
      ['cpu 2 → 2', { cpu: '2' }, { cpu: '2' }, { diff: 0, scaleUp: false }],
      [
        'cpu 10m → 900m',
        { cpu: '10m' },
        { cpu: '900m' },
        { diff: 89, scaleUp: true },
      ],
      [
        'cpu 3 → 6, memory 10M → 20M',
        { cpu: '3', memory: '10M' },
        { cpu: '6', memory: '20M' },
        { diff: 2, scaleUp: true },
      ],
      [
        'cpu 4 → 2, memory 10M → 20M',
        { cpu: '4', memory: '10M' },
        { cpu: '2', memory: '20M' },
        { diff: 1.5, scaleUp: true },
      ],
      [
        'cpu 4 → 2, memory 20M → 10M',
        { cpu: '4', memory: '20M' },
        { cpu: '2', memory: '10M' },
        { diff: 1, scaleUp: false },
      ],
    ])('%s', (_name, requests, target, expected) => {
      expect(priorityOf(requests, entry('app', target))).toEqual({
        ...expected,
        outsideRange: false,
      });
    });

    it('cpu 4 → 10 with bounds [6, 14] is outside the range, diff 1.5', () => {
      expect(
        priorityOf(
          { cpu: '4' },
          entry(
            'app',
            { cpu: '10' },
            { lowerBound: { cpu: '6' }, upperBound: { cpu: '14' } },
          ),
        ),
      ).toEqual({ diff: 1.5, scaleUp: true, outsideRange: true });
    });

    it('cpu 8 → 2 with bounds [1, 3] is outside the range, diff 0.75', () => {
      expect(
        priorityOf(
          { cpu: '8' },
          entry(
            'app',
            { cpu: '2' },
            { lowerBound: { cpu: '1' }, upperBound: { cpu: '3' } },
          ),
        ),
      ).toEqual({ diff: 0.75, scaleUp: false, outsideRange: true });
    });
  });

  it('a missing request is a scale-up outside the range, measured against 1 milli-unit (§5.3)', () => {
    // Upstream divides |max(request, 1) − target| by max(request, 1): 1 core is 1000 milli.
    expect(priorityOf({ memory: '1Gi' }, entry('app', { cpu: '1' }))).toEqual({
      diff: 999,
      scaleUp: true,
      outsideRange: true,
    });
  });

  it('sums requests and targets over the containers before dividing (§5.3)', () => {
    const vpa = vpaWith([entry('a', { cpu: '3' }), entry('b', { cpu: '1' })]);
    const pod = podWith([
      container('a', { cpu: '1' }),
      container('b', { cpu: '1' }),
    ]);
    // |2000 − 4000| / 2000, not |1−3|/1 + 0.
    expect(resourcePriority(pod, vpa, vpa.status?.recommendation).diff).toBe(1);
  });

  it('ignores containers missing from vpaObservedContainers (§5.3)', () => {
    const vpa = vpaWith([
      entry('app', { cpu: '1' }),
      entry('sidecar', { cpu: '8' }),
    ]);
    const pod = podWith(
      [container('app', { cpu: '1' }), container('sidecar', { cpu: '1' })],
      { annotations: { vpaObservedContainers: 'app' } },
    );
    expect(resourcePriority(pod, vpa, vpa.status?.recommendation).diff).toBe(0);
  });

  it('an empty vpaObservedContainers observes nothing; a malformed one is ignored', () => {
    const vpa = vpaWith([entry('app', { cpu: '2' })]);
    const diffWith = (value: string) =>
      resourcePriority(
        podWith([container('app', { cpu: '1' })], {
          annotations: { vpaObservedContainers: value },
        }),
        vpa,
        vpa.status?.recommendation,
      ).diff;
    expect(diffWith('')).toBe(0);
    expect(diffWith('App_1')).toBe(1);
  });

  it('leaves out containers in mode Off and resources the policy does not control', () => {
    const vpa = vpaWith(
      [entry('app', { cpu: '4', memory: '4Gi' }), entry('proxy', { cpu: '4' })],
      {
        policies: [
          { containerName: 'app', controlledResources: ['memory'] },
          { containerName: 'proxy', mode: 'Off' },
        ],
      },
    );
    const pod = podWith([
      container('app', { cpu: '1', memory: '4Gi' }),
      container('proxy', { cpu: '1' }),
    ]);
    expect(resourcePriority(pod, vpa, vpa.status?.recommendation)).toEqual({
      diff: 0,
      scaleUp: false,
      outsideRange: false,
    });
  });

  it('prefers the requests the container status reports (after an in-place resize)', () => {
    const vpa = vpaWith([entry('app', { cpu: '2' })]);
    const pod = podWith([container('app', { cpu: '1' })], {
      containerStatuses: [
        { name: 'app', resources: { requests: { cpu: '2' } } },
      ],
    });
    expect(resourcePriority(pod, vpa, vpa.status?.recommendation).diff).toBe(0);
  });

  it('reads only the bounds a resource has: one named `constructor` without a lower bound has none', () => {
    // A plain-object lookup found Object.prototype.constructor here and threw on it.
    const vpa = vpaWith(
      [entry('app', { constructor: '2' }, { lowerBound: { cpu: '1' } })],
      {
        policies: [
          { containerName: '*', controlledResources: ['constructor'] },
        ],
      },
    );
    const pod = podWith([container('app', { constructor: '1' })]);
    expect(resourcePriority(pod, vpa, vpa.status?.recommendation)).toEqual({
      diff: 1,
      scaleUp: true,
      outsideRange: false,
    });
  });

  it('compares bounds exactly, not in milli-units', () => {
    // Both round up to 2m; only an exact comparison sees the request below the bound.
    expect(
      priorityOf(
        { cpu: '1500001n' },
        entry('app', { cpu: '1500001n' }, { lowerBound: { cpu: '1500002n' } }),
      ).outsideRange,
    ).toBe(true);
  });
});
