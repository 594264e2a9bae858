import fc from 'fast-check';
import {
  parseQuantity,
  type ContainerResourcePolicy,
  type RecommendedContainerResources,
  type ResourceList,
} from '@tandem/vpa-api';
import { admit } from './admit.js';
import {
  candidate,
  containerWith,
  contextWith,
  ORIGINALS,
  patched,
  podReview,
  podWith,
  vpaWith,
  type RawContainer,
} from './admission.fixtures.js';
import type { AdmissionResult } from './admission-types.js';

type PodResources = { requests?: ResourceList; limits?: ResourceList };
type Spec = {
  containers: RawContainer[];
  initContainers?: RawContainer[];
  resources?: PodResources;
};

const recommendation = (...names: string[]): RecommendedContainerResources[] =>
  names.map((containerName) => ({
    containerName,
    target: { cpu: '2', memory: '256Mi' },
  }));

async function admitWith(
  pod: Record<string, unknown>,
  recommended: RecommendedContainerResources[],
  policies?: ContainerResourcePolicy[],
): Promise<{ result: AdmissionResult; spec: Spec }> {
  const vpa = vpaWith(recommended, { ...(policies && { policies }) });
  const result = await admit(
    podReview(pod),
    contextWith({ vpas: [candidate(vpa)] }),
  );
  return { result, spec: patched(pod, result)['spec'] as Spec };
}

const warningFor = (names: string) =>
  `VPA webhook: pod-level resources set for ${names}: the containers' ${names} left as declared (the VPA recommends per container, and a container above the pod-level value would get the pod rejected)`;

describe('admit: pods with pod-level resources', () => {
  it.each([
    ['requests only', { requests: { cpu: '1' } }],
    ['limits only', { limits: { cpu: '1' } }],
    ['requests and limits', { requests: { cpu: '1' }, limits: { cpu: '1' } }],
  ])(
    'cpu at pod level (%s): cpu left as declared, memory applied',
    async (_, resources) => {
      const app = containerWith('app', { cpu: '500m', memory: '64Mi' });
      const pod = podWith([app], { resources });
      const { result, spec } = await admitWith(pod, recommendation('app'));
      expect(result.outcome).toBe('applied');
      expect(result.podLevelResources).toEqual(['cpu']);
      expect(result.review?.response.warnings).toEqual([warningFor('cpu')]);
      expect(spec.containers[0]?.resources).toEqual({
        requests: { cpu: '500m', memory: '256Mi' },
      });
      expect(spec.resources).toEqual(resources);
    },
  );

  it('memory at pod level: memory left as declared, cpu applied with its limit in proportion', async () => {
    const app = containerWith(
      'app',
      { cpu: '500m', memory: '64Mi' },
      { cpu: '1', memory: '128Mi' },
    );
    const pod = podWith([app], { resources: { limits: { memory: '1Gi' } } });
    const { result, spec } = await admitWith(pod, recommendation('app'));
    expect(result.podLevelResources).toEqual(['memory']);
    expect(result.review?.response.warnings).toEqual([warningFor('memory')]);
    expect(spec.containers[0]?.resources).toEqual({
      requests: { cpu: '2', memory: '64Mi' },
      limits: { cpu: '4', memory: '128Mi' },
    });
  });

  it('cpu and memory at pod level: containers untouched, originals and observed containers still recorded', async () => {
    const app = containerWith('app', { cpu: '500m', memory: '64Mi' });
    const resources = { requests: { cpu: '1', memory: '1Gi' } };
    const pod = podWith([app], { resources });
    const { result, spec } = await admitWith(pod, recommendation('app'));
    expect(result).toMatchObject({
      outcome: 'skipped',
      message: 'vpa demo/web has nothing to set on this pod',
      podLevelResources: ['cpu', 'memory'],
    });
    expect(result.review?.response.warnings).toEqual([
      warningFor('cpu, memory'),
    ]);
    expect(spec).toEqual(pod['spec']);
    expect(
      Object.keys(
        (patched(pod, result)['metadata'] as { annotations: object })
          .annotations,
      ),
    ).toEqual([ORIGINALS, 'vpaObservedContainers']);
  });

  it('several containers: each keeps its cpu, each gets its memory', async () => {
    const pod = podWith(
      [
        containerWith('app', { cpu: '300m', memory: '64Mi' }),
        containerWith('sidecar', { cpu: '200m' }),
      ],
      { resources: { requests: { cpu: '1' }, limits: { cpu: '1' } } },
    );
    const { result, spec } = await admitWith(
      pod,
      recommendation('app', 'sidecar'),
    );
    expect(result.podLevelResources).toEqual(['cpu']);
    expect(spec.containers.map((c) => c.resources)).toEqual([
      { requests: { cpu: '300m', memory: '256Mi' } },
      { requests: { cpu: '200m', memory: '256Mi' } },
    ]);
  });

  it('init containers and sidecars are left alone as always; the app container keeps its cpu', async () => {
    const init = containerWith('init', { cpu: '1' });
    const sidecar = {
      ...containerWith('proxy', { cpu: '100m' }),
      restartPolicy: 'Always',
    };
    const pod = podWith([containerWith('app', { cpu: '500m' })], {
      initContainers: [init, sidecar],
      resources: { requests: { cpu: '1' } },
    });
    const { result, spec } = await admitWith(
      pod,
      recommendation('init', 'proxy', 'app'),
    );
    expect(result.podLevelResources).toEqual(['cpu']);
    expect(spec.initContainers).toEqual([init, sidecar]);
    expect(spec.containers[0]?.resources).toEqual({
      requests: { cpu: '500m', memory: '256Mi' },
    });
  });

  it('no warning when the VPA does not control the pod-level resource', async () => {
    const pod = podWith([containerWith('app', { cpu: '500m' })], {
      resources: { requests: { cpu: '1' } },
    });
    const { result, spec } = await admitWith(pod, recommendation('app'), [
      { containerName: '*', controlledResources: ['memory'] },
    ]);
    expect(result.outcome).toBe('applied');
    expect(result.podLevelResources).toBeUndefined();
    expect(result.review?.response.warnings).toBeUndefined();
    expect(spec.containers[0]?.resources?.requests).toEqual({
      cpu: '500m',
      memory: '256Mi',
    });
  });

  it('a pod without pod-level resources gets both resources and no warning', async () => {
    const pod = podWith([containerWith('app', { cpu: '500m' })]);
    const { result, spec } = await admitWith(pod, recommendation('app'));
    expect(result.podLevelResources).toBeUndefined();
    expect(result.review?.response.warnings).toBeUndefined();
    expect(spec.containers[0]?.resources?.requests).toEqual({
      cpu: '2',
      memory: '256Mi',
    });
  });
});

// ---------------------------------------------------------------------------------------
// The API server's check (kubernetes/kubernetes pkg/apis/core/validation/validation.go,
// validatePodResourceConsistency), for the resources declared at pod level: the pod-level
// request covers the containers' aggregate request (component-helpers
// `AggregateContainerRequests`: regular containers and sidecars summed, or the largest init
// container with the sidecars started before it, whichever is more), and no container limit
// exceeds the pod-level limit.

const RESOURCES = ['cpu', 'memory'] as const;
type Resource = (typeof RESOURCES)[number];
/** Amounts are whole millicores of cpu and whole MiB of memory. */
const format = (resource: Resource, amount: number) =>
  resource === 'cpu' ? `${amount}m` : `${amount}Mi`;
const MILLI_PER_UNIT: Record<Resource, bigint> = {
  cpu: 1n,
  memory: 1000n * 1024n * 1024n,
};
const milli = (text: string | undefined) =>
  text === undefined ? 0n : parseQuantity(text).milliValue();
const max = (a: bigint, b: bigint) => (a > b ? a : b);

function aggregateRequest(spec: Spec, resource: Resource): bigint {
  const request = (c: RawContainer) => milli(c.resources?.requests?.[resource]);
  let regular = spec.containers.reduce((sum, c) => sum + request(c), 0n);
  let sidecars = 0n;
  let initPeak = 0n;
  for (const init of spec.initContainers ?? []) {
    if (init.restartPolicy === 'Always') {
      regular += request(init);
      sidecars += request(init);
      initPeak = max(initPeak, sidecars);
    } else {
      initPeak = max(initPeak, sidecars + request(init));
    }
  }
  return max(regular, initPeak);
}

function podLevelProblems(spec: Spec): string[] {
  const problems: string[] = [];
  for (const resource of RESOURCES) {
    const podRequest = spec.resources?.requests?.[resource];
    if (podRequest !== undefined) {
      const aggregate = aggregateRequest(spec, resource);
      if (aggregate > milli(podRequest))
        problems.push(`${resource}: aggregate request above ${podRequest}`);
    }
    const podLimit = spec.resources?.limits?.[resource];
    if (podLimit === undefined) continue;
    for (const container of spec.containers) {
      const limit = container.resources?.limits?.[resource];
      if (limit !== undefined && milli(limit) > milli(podLimit))
        problems.push(`${container.name}: ${resource} limit above ${podLimit}`);
    }
  }
  return problems;
}

const amount = fc.integer({ min: 1, max: 4000 });
const declared = (resource: Resource) =>
  fc
    .record(
      { request: fc.option(amount), extraLimit: fc.option(amount) },
      { requiredKeys: [] },
    )
    .map(({ request, extraLimit }) => ({
      request: request ?? undefined,
      limit:
        extraLimit === undefined || extraLimit === null
          ? undefined
          : (request ?? 0) + extraLimit,
      resource,
    }));
const containerSpec = (name: string, restartPolicy?: string) =>
  fc.tuple(declared('cpu'), declared('memory')).map((values): RawContainer => {
    const requests: ResourceList = {};
    const limits: ResourceList = {};
    for (const { resource, request, limit } of values) {
      if (request !== undefined) requests[resource] = format(resource, request);
      if (limit !== undefined) limits[resource] = format(resource, limit);
    }
    return {
      ...containerWith(name, requests, limits),
      ...(restartPolicy && { restartPolicy }),
    };
  });
const containers = fc
  .integer({ min: 1, max: 3 })
  .chain((count) =>
    fc.tuple(
      ...Array.from({ length: count }, (_, i) => containerSpec(`c${i}`)),
    ),
  );
const initContainers = fc.array(
  fc
    .tuple(fc.boolean(), fc.nat())
    .chain(([sidecar, i]) =>
      containerSpec(`init${i}`, sidecar ? 'Always' : undefined),
    ),
  { maxLength: 2 },
);
/** Which of request and limit the pod declares for a resource, and by how much above the minimum. */
const podLevelChoice = fc.record({
  request: fc.option(fc.nat({ max: 2000 })),
  limit: fc.option(fc.nat({ max: 2000 })),
});

/** A pod the API server accepts as submitted, with some pod-level values. */
const validPodWithPodLevelResources = fc
  .record({
    containers,
    initContainers,
    cpu: podLevelChoice,
    memory: podLevelChoice,
  })
  .filter(({ cpu, memory }) =>
    [cpu.request, cpu.limit, memory.request, memory.limit].some(
      (choice) => choice !== null,
    ),
  )
  .map(({ containers, initContainers, cpu, memory }) => {
    const names = new Set<string>();
    const inits = initContainers.filter(({ name }) =>
      names.has(name) ? false : (names.add(name), true),
    );
    const spec: Spec = { containers, initContainers: inits };
    const requests: ResourceList = {};
    const limits: ResourceList = {};
    for (const [resource, choice] of [
      ['cpu', cpu],
      ['memory', memory],
    ] as const) {
      const units = (millis: bigint) =>
        Number(millis / MILLI_PER_UNIT[resource]);
      const aggregate = units(aggregateRequest(spec, resource));
      const topLimit = Math.max(
        0,
        ...containers.map((c) => units(milli(c.resources?.limits?.[resource]))),
      );
      const request =
        choice.request === null ? undefined : aggregate + choice.request + 1;
      if (request !== undefined) requests[resource] = format(resource, request);
      if (choice.limit !== null)
        limits[resource] = format(
          resource,
          Math.max(request ?? 0, topLimit, aggregate) + choice.limit + 1,
        );
    }
    return podWith(containers, {
      initContainers: inits,
      resources: { requests, limits },
    });
  });

const anyRecommendation = fc.array(
  fc.record({
    containerName: fc.constantFrom('c0', 'c1', 'c2', 'init0', 'init1'),
    target: fc.record(
      {
        cpu: amount.map((n) => format('cpu', n * 3)),
        memory: amount.map((n) => format('memory', n * 3)),
      },
      { requiredKeys: [] },
    ),
  }),
  { minLength: 1, maxLength: 4 },
);
const controlledValues = fc.constantFrom('RequestsAndLimits', 'RequestsOnly');

describe('admit: pod-level resources, for any pod and recommendation', () => {
  it('the patched pod passes the API server pod-level checks, and pod-level resources are untouched', async () => {
    await fc.assert(
      fc.asyncProperty(
        validPodWithPodLevelResources,
        anyRecommendation,
        controlledValues,
        async (pod, recommended, values) => {
          const before = pod['spec'] as Spec;
          expect(podLevelProblems(before)).toEqual([]);
          const { result, spec } = await admitWith(pod, recommended, [
            { containerName: '*', controlledValues: values as never },
          ]);
          expect(result.review?.response.allowed).toBe(true);
          expect(podLevelProblems(spec)).toEqual([]);
          const atPodLevel = new Set([
            ...Object.keys(before.resources?.requests ?? {}),
            ...Object.keys(before.resources?.limits ?? {}),
          ]);
          spec.containers.forEach((container, index) => {
            for (const resource of atPodLevel) {
              for (const field of ['requests', 'limits'] as const) {
                expect(container.resources?.[field]?.[resource]).toBe(
                  before.containers[index]?.resources?.[field]?.[resource],
                );
              }
            }
          });
        },
      ),
      { numRuns: 500 },
    );
  });
});
