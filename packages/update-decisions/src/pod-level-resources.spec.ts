import fc from 'fast-check';
import type { ResourceList, ResourceRequirements } from '@tandem/vpa-api';
import { updaterRecommendation } from './controlled-recommendation.js';
import { meetsEvictionRequirements } from './eviction-requirements.js';
import { decideInPlaceUpdate } from './in-place-decision.js';
import { InfeasibleResizes } from './infeasible-resizes.js';
import { inPlaceResizePatch } from './resize-patch.js';
import { decidePodUpdate } from './update-decision.js';
import { UpdateRestriction } from './update-restriction.js';
import {
  container,
  entry,
  NOW,
  podWith,
  replicas,
  vpaWith,
} from './updater.fixtures.js';

const declared = () =>
  container(
    'app',
    { cpu: '500m', memory: '64Mi' },
    { cpu: '1', memory: '128Mi' },
  );
/** Far from the pod's cpu and memory: outside the range, and a large diff, for both. */
const farOff = entry(
  'app',
  { cpu: '2', memory: '512Mi' },
  {
    lowerBound: { cpu: '1500m', memory: '400Mi' },
    upperBound: { cpu: '3', memory: '1Gi' },
  },
);

function decideFor(resources: ResourceRequirements | undefined) {
  const pod = podWith([declared()], { ...(resources && { resources }) });
  const vpa = vpaWith([farOff]);
  return decidePodUpdate({
    pod,
    vpa,
    recommendation: updaterRecommendation(pod, vpa),
    now: NOW,
  });
}

const pathsOf = (resources: ResourceRequirements | undefined) =>
  inPlaceResizePatch(
    podWith([declared()], { ...(resources && { resources }) }),
    vpaWith([farOff], { mode: 'InPlaceOrRecreate' }),
  ).map(({ path }) => path);

describe('the updater and pod-level resources', () => {
  it('a pod without pod-level resources is resized for both resources', () => {
    expect(pathsOf(undefined)).toEqual([
      '/spec/containers/0/resources/requests/cpu',
      '/spec/containers/0/resources/requests/memory',
      '/spec/containers/0/resources/limits/cpu',
      '/spec/containers/0/resources/limits/memory',
    ]);
  });

  it.each([
    ['requests only', { requests: { cpu: '1' } }],
    ['limits only', { limits: { cpu: '2' } }],
    ['requests and limits', { requests: { cpu: '1' }, limits: { cpu: '2' } }],
  ])(
    'cpu at pod level (%s): only memory is in the resize patch',
    (_, resources) => {
      expect(pathsOf(resources)).toEqual([
        '/spec/containers/0/resources/requests/memory',
        '/spec/containers/0/resources/limits/memory',
      ]);
    },
  );

  it('memory at pod level: only cpu is in the resize patch', () => {
    expect(pathsOf({ limits: { memory: '1Gi' } })).toEqual([
      '/spec/containers/0/resources/requests/cpu',
      '/spec/containers/0/resources/limits/cpu',
    ]);
  });

  it('both at pod level: nothing to resize', () => {
    expect(pathsOf({ requests: { cpu: '1', memory: '1Gi' } })).toEqual([]);
  });

  it('a pod whose only difference is in pod-level resources is neither resized nor evicted', () => {
    expect(decideFor(undefined)).toMatchObject({
      update: true,
      outsideRange: true,
    });
    expect(decideFor({ requests: { cpu: '1', memory: '1Gi' } })).toMatchObject({
      update: false,
      outsideRange: false,
      scaleUp: false,
      diff: 0,
    });
  });

  it('the other resource still counts: memory at pod level, cpu outside its range', () => {
    expect(decideFor({ limits: { memory: '1Gi' } })).toMatchObject({
      update: true,
      outsideRange: true,
      diff: 3,
    });
  });

  it('the raw VPA recommendation, not only the processed one, is narrowed for the pod', () => {
    const pod = podWith([declared()], {
      resources: { requests: { cpu: '1', memory: '1Gi' } },
    });
    const vpa = vpaWith([farOff]);
    expect(
      decidePodUpdate({
        pod,
        vpa,
        recommendation: vpa.status?.recommendation,
        now: NOW,
      }).update,
    ).toBe(false);
  });

  it('evictionRequirements ignore a pod-level resource', () => {
    const vpa = vpaWith([farOff], {
      evictionRequirements: [
        { resources: ['cpu'], changeRequirement: 'TargetHigherThanRequests' },
      ],
    });
    const recommendation = vpa.status?.recommendation;
    const withCpuAt = (resources?: ResourceRequirements) =>
      podWith([declared()], { ...(resources && { resources }) });
    expect(meetsEvictionRequirements(withCpuAt(), vpa, recommendation)).toBe(
      true,
    );
    expect(
      meetsEvictionRequirements(
        withCpuAt({ requests: { cpu: '1' } }),
        vpa,
        recommendation,
      ),
    ).toBe(false);
  });

  it('InPlace: a lower target for a pod-level resource does not retry an infeasible resize', () => {
    const pod = podWith([declared()], {
      name: 'target',
      uid: 'uid-target',
      resources: { limits: { cpu: '4' } },
    });
    const before = vpaWith([entry('app', { cpu: '2', memory: '512Mi' })]);
    const infeasible = new InfeasibleResizes();
    infeasible.record('uid-target', before.status?.recommendation ?? {});
    const vpa = vpaWith([entry('app', { cpu: '1', memory: '512Mi' })], {
      mode: 'InPlace',
    });
    const others = replicas(2);
    const decision = decideInPlaceUpdate({
      pod,
      vpa,
      restriction: UpdateRestriction.create({
        vpa,
        pods: [pod, ...others],
        now: NOW,
        configuredReplicas: () => 3,
      }),
      featureGates: { InPlace: true },
      lastInfeasible: infeasible.lastAttempt('uid-target'),
    });
    expect(decision.action).toBe('skip');
  });
});

// ---------------------------------------------------------------------------------------
// For any pod with pod-level resources and any recommendation that differs from the pod
// only in those resources: no update, and no resize operation on them.

const RESOURCES = ['cpu', 'memory'] as const;
type Resource = (typeof RESOURCES)[number];
const format = (resource: Resource, amount: number) =>
  resource === 'cpu' ? `${amount}m` : `${amount}Mi`;
const amount = fc.integer({ min: 1, max: 8000 });
const values = fc.record({ cpu: amount, memory: amount });

const scenario = fc.record({
  containers: fc.array(values, { minLength: 1, maxLength: 3 }),
  recommended: fc.array(values, { minLength: 3, maxLength: 3 }),
  atPodLevel: fc.subarray([...RESOURCES], { minLength: 1 }),
  asLimit: fc.boolean(),
  mode: fc.constantFrom('Recreate', 'InPlaceOrRecreate'),
});

describe('the updater and pod-level resources, for any pod and recommendation', () => {
  it('differences only in pod-level resources update nothing and resize nothing of them', () => {
    fc.assert(
      fc.property(
        scenario,
        ({ containers, recommended, atPodLevel, asLimit, mode }) => {
          const requestsOf = (v: Record<Resource, number>): ResourceList =>
            Object.fromEntries(RESOURCES.map((r) => [r, format(r, v[r])]));
          const pod = podWith(
            containers.map((v, i) => container(`c${i}`, requestsOf(v))),
            {
              resources: {
                [asLimit ? 'limits' : 'requests']: Object.fromEntries(
                  atPodLevel.map((r) => [r, format(r, 100_000)]),
                ),
              },
            },
          );
          // The recommendation equals the pod's requests except in pod-level resources.
          const entries = containers.map((v, i) => {
            const target = requestsOf({
              ...v,
              ...Object.fromEntries(
                atPodLevel.map((r) => [r, recommended[i]?.[r] ?? 1]),
              ),
            });
            return entry(`c${i}`, target, {
              lowerBound: target,
              upperBound: target,
            });
          });
          const vpa = vpaWith(entries, { mode });
          const decision = decidePodUpdate({
            pod,
            vpa,
            recommendation: updaterRecommendation(pod, vpa),
            now: NOW,
          });
          expect(decision).toMatchObject({ update: false, diff: 0 });
          const touched = inPlaceResizePatch(pod, vpa).filter(({ path }) =>
            atPodLevel.some((r) => path.endsWith(`/${r}`)),
          );
          expect(touched).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
