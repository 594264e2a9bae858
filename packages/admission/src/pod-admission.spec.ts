import type { LimitRange } from '@tandem/vpa-api';
import { admit } from './admit.js';
import {
  candidate,
  containerWith,
  contextWith,
  limitRangeOf,
  ORIGINALS,
  patched,
  patchOf,
  podReview,
  podWith,
  resourcesOf,
  vpaWith,
  withAnnotations,
  type ContextOptions,
} from './admission.fixtures.js';
import type { AdmissionResult } from './admission-types.js';

async function admitPod(
  pod: unknown,
  options: ContextOptions = {},
): Promise<AdmissionResult> {
  return admit(podReview(pod), contextWith(options));
}

/** The pod as the webhook should leave it: a deep copy, changed by `edit`. */
function expectedFrom(
  pod: Record<string, unknown>,
  annotations: Record<string, string>,
  edit: (expected: Record<string, unknown>) => void = () => undefined,
): Record<string, unknown> {
  const expected = withAnnotations(pod, annotations);
  edit(expected);
  return expected;
}

function expectAllowed(result: AdmissionResult): void {
  expect(result.httpStatus).toBe(200);
  expect(result.resource).toBe('Pod');
  expect(result.review?.response).toMatchObject({
    uid: 'uid-1',
    allowed: true,
  });
}

const webApp = () =>
  containerWith('app', { cpu: '100m', memory: '128Mi' }, { cpu: '200m' });
const appOriginals =
  '{"app":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"200m"}}}';

describe('admit: pods without a VPA to apply', () => {
  function expectUnpatched(result: AdmissionResult): void {
    expect(result.review?.response.patch).toBeUndefined();
    expect(result.review?.response.patchType).toBeUndefined();
  }

  it('no VPA: no patch at all, as upstream (not even the original resources)', async () => {
    const pod = podWith([webApp()]);
    const result = await admitPod(pod);
    expectAllowed(result);
    expect(result).toMatchObject({
      outcome: 'skipped',
      message: 'no VPA matches',
      namespace: 'demo',
      podName: 'web-6d4f-%',
      ownerKind: 'ReplicaSet',
      ownerName: 'web-6d4f',
    });
    expect(result.vpaName).toBeUndefined();
    expectUnpatched(result);
    expect(result.review?.response.warnings).toBeUndefined();
  });

  it('looks VPAs up in the namespace of the request, not of the pod', async () => {
    const context = contextWith();
    const pod = podWith([webApp()]);
    const result = await admit(podReview(pod), context);
    expect(context.asked).toEqual(['demo']);
    expectUnpatched(result);
  });

  it('a VPA whose selector does not match, or is unresolved, does not apply', async () => {
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }]);
    for (const selector of [{ matchLabels: { app: 'db' } }, undefined]) {
      const pod = podWith([webApp()]);
      const result = await admitPod(pod, { vpas: [{ vpa, selector }] });
      expect(result.message).toBe('no VPA matches');
      expectUnpatched(result);
    }
  });

  it('VPA in mode Off: no patch at all', async () => {
    const pod = podWith([webApp()]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }], {
      mode: 'Off',
    });
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expectAllowed(result);
    expect(result).toMatchObject({
      outcome: 'skipped',
      message: 'no VPA applies: update mode Off for demo/web',
    });
    expectUnpatched(result);
  });

  it('keeps an existing original-resources annotation: no patch at all without a VPA', async () => {
    const pod = podWith([webApp()], {
      annotations: {
        [ORIGINALS]: '{"app":{"requests":{"cpu":"1"},"limits":{}}}',
      },
    });
    const result = await admitPod(pod);
    expectAllowed(result);
    expect(result.outcome).toBe('skipped');
    expect(result.review?.response.patch).toBeUndefined();
    expect(result.review?.response.patchType).toBeUndefined();
    expect(patched(pod, result)).toEqual(pod);
  });

  it('VPA without a recommendation: original resources and observed containers only', async () => {
    const pod = podWith([webApp(), containerWith('sidecar')]);
    const result = await admitPod(pod, {
      vpas: [candidate(vpaWith(undefined))],
    });
    expectAllowed(result);
    expect(result).toMatchObject({
      outcome: 'skipped',
      message: 'vpa demo/web has no recommendation yet',
      vpaName: 'web',
    });
    expect(patched(pod, result)).toEqual(
      expectedFrom(pod, {
        [ORIGINALS]:
          '{"app":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"200m"}},"sidecar":{"requests":{},"limits":{}}}',
        vpaObservedContainers: 'app, sidecar',
      }),
    );
  });

  it('a recommendation only for containers the pod lacks changes nothing', async () => {
    const pod = podWith([webApp()]);
    const vpa = vpaWith([{ containerName: 'other', target: { cpu: '1' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(result).toMatchObject({
      outcome: 'skipped',
      message: 'vpa demo/web has nothing to set on this pod',
    });
    expect(patched(pod, result)).toEqual(
      expectedFrom(pod, {
        [ORIGINALS]: appOriginals,
        vpaObservedContainers: 'app',
      }),
    );
  });
});

describe('admit: applying a recommendation', () => {
  it('RequestsAndLimits (default): requests set, limits kept in proportion (vector 19)', async () => {
    const pod = podWith([
      containerWith(
        'app',
        { cpu: '1', memory: '150' },
        { cpu: '2', memory: '200' },
      ),
    ]);
    const vpa = vpaWith([
      { containerName: 'app', target: { cpu: '10', memory: '100' } },
    ]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expectAllowed(result);
    expect(result).toMatchObject({
      outcome: 'applied',
      message:
        'applied vpa demo/web: container 0: cpu request, memory request, cpu limit, memory limit',
      vpaName: 'web',
    });
    expect(patched(pod, result)).toEqual(
      expectedFrom(
        pod,
        {
          [ORIGINALS]:
            '{"app":{"requests":{"cpu":"1","memory":"150"},"limits":{"cpu":"2","memory":"200"}}}',
          vpaUpdates:
            'Pod resources updated by web: container 0: cpu request, memory request, cpu limit, memory limit',
          vpaObservedContainers: 'app',
        },
        (expected) => {
          const resources = resourcesOf(expected, 0);
          resources.requests = { cpu: '10', memory: '100' };
          resources.limits = { cpu: '20', memory: '133' };
        },
      ),
    );
  });

  it('writes operations in upstream order: annotations map, containers, then annotations', async () => {
    const pod = podWith([containerWith('app', { cpu: '1' }, { cpu: '2' })]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1500m' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(patchOf(result).map(({ path }) => path)).toEqual([
      '/metadata/annotations',
      '/spec/containers/0/resources/requests/cpu',
      '/spec/containers/0/resources/limits/cpu',
      '/metadata/annotations/tandem.dev~1original-resources',
      '/metadata/annotations/vpaUpdates',
      '/metadata/annotations/vpaObservedContainers',
    ]);
    expect(resourcesOf(patched(pod, result), 0)).toEqual({
      requests: { cpu: '1500m' },
      limits: { cpu: '3' },
    });
  });

  it('vector 19 through the webhook: LimitRange default limit, no limit, limit = request, no request', async () => {
    const pod = podWith([
      containerWith('default-limit', { cpu: '1' }),
      containerWith('no-limit', { memory: '1Gi' }),
      containerWith('equal', { cpu: '1' }, { cpu: '1' }),
      containerWith('no-request', {}, { memory: '2Gi' }),
    ]);
    const vpa = vpaWith([
      { containerName: 'default-limit', target: { cpu: '10' } },
      { containerName: 'no-limit', target: { memory: '2Gi' } },
      { containerName: 'equal', target: { cpu: '10' } },
      { containerName: 'no-request', target: { memory: '1Gi' } },
    ]);
    const limitRanges: LimitRange[] = [
      limitRangeOf({ type: 'Container', default: { cpu: '2' } }),
    ];
    const result = await admitPod(pod, {
      vpas: [candidate(vpa)],
      limitRanges,
    });
    expect(result.outcome).toBe('applied');
    const after = patched(pod, result);
    expect(resourcesOf(after, 0)).toEqual({
      requests: { cpu: '10' },
      limits: { cpu: '20' },
    });
    expect(resourcesOf(after, 1)).toEqual({ requests: { memory: '2Gi' } });
    expect(resourcesOf(after, 2)).toEqual({
      requests: { cpu: '10' },
      limits: { cpu: '10' },
    });
    expect(resourcesOf(after, 3)).toEqual({
      requests: { memory: '1Gi' },
      limits: { memory: '1Gi' },
    });
    expect(
      (after['metadata'] as { annotations: Record<string, string> })
        .annotations['vpaUpdates'],
    ).toBe(
      'Pod resources updated by web: ' +
        'container 0: memory: limit NOT set since originalLimit is nil or 0, cpu request, cpu limit; ' +
        'container 1: memory request; ' +
        'container 2: memory: limit NOT set since originalLimit is nil or 0, cpu request, cpu limit; ' +
        'container 3: cpu: limit NOT set since recommendedRequest is nil or 0, memory request, memory limit',
    );
  });

  it('vector 19 through the webhook: an overflowing limit is capped to MaxInt64 and said so', async () => {
    const pod = podWith([containerWith('app', { cpu: '1m' }, { cpu: '10G' })]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '10G' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(resourcesOf(patched(pod, result), 0)).toEqual({
      requests: { cpu: '10G' },
      limits: { cpu: '9223372036854775807m' },
    });
    expect(result.message).toBe(
      'applied vpa demo/web: container 0: cpu: failed to keep limit to request ratio; capping limit to int64, memory: limit NOT set since originalLimit is nil or 0, cpu request, cpu limit',
    );
  });

  it('RequestsOnly: requests capped to the container limit, limits untouched (vector 20)', async () => {
    const pod = podWith([
      containerWith('app', undefined, { cpu: '300', memory: '700000' }),
    ]);
    const vpa = vpaWith(
      [
        {
          containerName: 'app',
          target: { cpu: '200', memory: '800000' },
          upperBound: { cpu: '1000', memory: '900000' },
        },
      ],
      { policies: [{ containerName: '*', controlledValues: 'RequestsOnly' }] },
    );
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(result.outcome).toBe('applied');
    expect(patched(pod, result)).toEqual(
      expectedFrom(
        pod,
        {
          [ORIGINALS]:
            '{"app":{"requests":{},"limits":{"cpu":"300","memory":"700000"}}}',
          vpaUpdates:
            'Pod resources updated by web: container 0: memory capped to container limit, cpu request, memory request',
          vpaObservedContainers: 'app',
        },
        (expected) => {
          resourcesOf(expected, 0).requests = { cpu: '200', memory: '700k' };
        },
      ),
    );
  });

  it('policy minAllowed / maxAllowed cap the target, annotated (vector 20)', async () => {
    const pod = podWith([containerWith('app')]);
    const vpa = vpaWith(
      [
        {
          containerName: 'app',
          target: { cpu: '3000', memory: '500000' },
          lowerBound: { cpu: '2000', memory: '430000' },
          upperBound: { cpu: '5000', memory: '550000' },
        },
      ],
      {
        policies: [
          {
            containerName: 'app',
            minAllowed: { cpu: '4000', memory: '400000' },
            maxAllowed: { cpu: '4500', memory: '450000' },
          },
        ],
      },
    );
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(resourcesOf(patched(pod, result), 0)).toEqual({
      requests: { cpu: '4k', memory: '450k' },
    });
    expect(result.message).toBe(
      'applied vpa demo/web: container 0: cpu capped to minAllowed, memory capped to maxAllowed, cpu request, memory request',
    );
  });

  it('container LimitRange max keeps the scaled limit within bounds', async () => {
    const pod = podWith([containerWith('app', { cpu: '1' }, { cpu: '2' })]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '5' } }]);
    const result = await admitPod(pod, {
      vpas: [candidate(vpa)],
      limitRanges: [limitRangeOf({ type: 'Container', max: { cpu: '4' } })],
    });
    expect(resourcesOf(patched(pod, result), 0)).toEqual({
      requests: { cpu: '2' },
      limits: { cpu: '4' },
    });
    expect(result.message).toContain(
      'cpu capped to fit Max in container LimitRange',
    );
  });

  it('a container without a resources block gets resources, requests and limits objects as needed', async () => {
    const pod = podWith([{ name: 'bare', image: 'nginx' }]);
    const vpa = vpaWith([
      { containerName: 'bare', target: { cpu: '250m', memory: '256Mi' } },
    ]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(patchOf(result).slice(1, 5)).toEqual([
      { op: 'add', path: '/spec/containers/0/resources', value: {} },
      { op: 'add', path: '/spec/containers/0/resources/requests', value: {} },
      {
        op: 'add',
        path: '/spec/containers/0/resources/requests/cpu',
        value: '250m',
      },
      {
        op: 'add',
        path: '/spec/containers/0/resources/requests/memory',
        value: '256Mi',
      },
    ]);
    expect(patched(pod, result)).toEqual(
      expectedFrom(
        pod,
        {
          [ORIGINALS]: '{"bare":{"requests":{},"limits":{}}}',
          vpaUpdates:
            'Pod resources updated by web: container 0: cpu request, memory request',
          vpaObservedContainers: 'bare',
        },
        (expected) => {
          resourcesOf(expected, 0).requests = { cpu: '250m', memory: '256Mi' };
        },
      ),
    );
  });

  it('keeps other fields of an existing resources object (e.g. claims)', async () => {
    const pod = podWith([
      {
        name: 'app',
        resources: { claims: [{ name: 'gpu' }] } as never,
      },
    ]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(resourcesOf(patched(pod, result), 0)).toEqual({
      claims: [{ name: 'gpu' }],
      requests: { cpu: '1' },
    });
  });

  it('writes canonical quantities', async () => {
    const pod = podWith([containerWith('app', { cpu: '1' }, { cpu: '1' })]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '0.25' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(resourcesOf(patched(pod, result), 0)).toEqual({
      requests: { cpu: '250m' },
      limits: { cpu: '250m' },
    });
  });

  it('container mode Off: that container is left alone', async () => {
    const pod = podWith([
      containerWith('app', { cpu: '100m' }),
      containerWith('proxy', { cpu: '50m' }),
    ]);
    const vpa = vpaWith(
      [
        { containerName: 'app', target: { cpu: '300m' } },
        { containerName: 'proxy', target: { cpu: '10m' } },
      ],
      { policies: [{ containerName: 'proxy', mode: 'Off' }] },
    );
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(result.message).toBe(
      'applied vpa demo/web: container 0: cpu request',
    );
    const after = patched(pod, result);
    expect(resourcesOf(after, 0)).toEqual({ requests: { cpu: '300m' } });
    expect(resourcesOf(after, 1)).toEqual({ requests: { cpu: '50m' } });
    expect(
      (after['metadata'] as { annotations: Record<string, string> })
        .annotations['vpaObservedContainers'],
    ).toBe('app, proxy');
  });

  it('only the controlled resources are set', async () => {
    const pod = podWith([
      containerWith(
        'app',
        { cpu: '1', memory: '1Gi' },
        { cpu: '2', memory: '2Gi' },
      ),
    ]);
    const vpa = vpaWith(
      [{ containerName: 'app', target: { cpu: '3', memory: '3Gi' } }],
      { policies: [{ containerName: '*', controlledResources: ['memory'] }] },
    );
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(resourcesOf(patched(pod, result), 0)).toEqual({
      requests: { cpu: '1', memory: '3Gi' },
      limits: { cpu: '2', memory: '6Gi' },
    });
    expect(result.message).toBe(
      'applied vpa demo/web: container 0: cpu: limit NOT set since recommendedRequest is nil or 0, memory request, memory limit',
    );
  });

  it('init containers and native sidecars are recorded but never changed', async () => {
    const pod = podWith([containerWith('app', { cpu: '100m' })], {
      initContainers: [
        containerWith('migrate', { cpu: '1' }),
        {
          ...containerWith('mesh', { memory: '64Mi' }),
          restartPolicy: 'Always',
        },
      ],
    });
    const vpa = vpaWith([
      { containerName: 'app', target: { cpu: '200m' } },
      { containerName: 'migrate', target: { cpu: '2' } },
      { containerName: 'mesh', target: { memory: '128Mi' } },
    ]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(patched(pod, result)).toEqual(
      expectedFrom(
        pod,
        {
          [ORIGINALS]:
            '{"migrate":{"requests":{"cpu":"1"},"limits":{}},"mesh":{"requests":{"memory":"64Mi"},"limits":{}},"app":{"requests":{"cpu":"100m"},"limits":{}}}',
          vpaUpdates: 'Pod resources updated by web: container 0: cpu request',
          vpaObservedContainers: 'app',
        },
        (expected) => {
          resourcesOf(expected, 0).requests = { cpu: '200m' };
        },
      ),
    );
  });

  it('keeps an existing original-resources annotation and adds the others next to it', async () => {
    const recorded = '{"app":{"requests":{"cpu":"1"},"limits":{}}}';
    const pod = podWith([containerWith('app', { cpu: '100m' })], {
      annotations: { [ORIGINALS]: recorded, team: 'a' },
    });
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '200m' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    const operations = patchOf(result);
    expect(
      operations.some(({ path }) => path === '/metadata/annotations'),
    ).toBe(false);
    expect(patched(pod, result)).toEqual(
      expectedFrom(
        pod,
        {
          vpaUpdates: 'Pod resources updated by web: container 0: cpu request',
          vpaObservedContainers: 'app',
        },
        (expected) => {
          resourcesOf(expected, 0).requests = { cpu: '200m' };
        },
      ),
    );
  });

  it('a pod without metadata (no labels, no owner) matches no VPA and is left unchanged', async () => {
    const pod = { spec: { containers: [containerWith('app')] } };
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(result.outcome).toBe('skipped');
    expect(patched(pod, result)).toEqual(pod);
  });

  it('several matching VPAs: the oldest wins, then the smallest name; Off ones are passed over', async () => {
    const pod = podWith([containerWith('app', { cpu: '100m' })]);
    const target = (cpu: string) => [{ containerName: 'app', target: { cpu } }];
    const vpas = [
      candidate(
        vpaWith(target('1'), {
          name: 'newer',
          created: '2024-03-01T00:00:00Z',
        }),
      ),
      candidate(
        vpaWith(target('2'), {
          name: 'b-old',
          created: '2024-01-01T00:00:00Z',
        }),
      ),
      candidate(
        vpaWith(target('3'), {
          name: 'a-old',
          created: '2024-01-01T00:00:00Z',
        }),
      ),
      candidate(
        vpaWith(target('4'), {
          name: 'oldest-off',
          created: '2023-01-01T00:00:00Z',
          mode: 'Off',
        }),
      ),
    ];
    const result = await admitPod(pod, { vpas });
    expect(result.vpaName).toBe('a-old');
    expect(resourcesOf(patched(pod, result), 0)).toEqual({
      requests: { cpu: '3' },
    });
  });

  it.each([
    'Initial',
    'Recreate',
    'Auto',
    'InPlaceOrRecreate',
    'InPlace',
  ] as const)('update mode %s applies at creation', async (mode) => {
    const pod = podWith([containerWith('app', { cpu: '100m' })]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }], {
      mode,
    });
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(result.outcome).toBe('applied');
    expect(resourcesOf(patched(pod, result), 0)).toEqual({
      requests: { cpu: '1' },
    });
  });
});

describe('admit: pods that cannot be changed are still let in', () => {
  function expectErrorWithWarning(result: AdmissionResult, message: string) {
    expectAllowed(result);
    expect(result.outcome).toBe('error');
    expect(result.message).toBe(message);
    expect(result.review?.response.warnings).toEqual([
      `VPA webhook: ${message}`,
    ]);
  }

  it('a malformed quantity in the pod: original resources recorded as submitted, nothing else', async () => {
    const pod = podWith([containerWith('app', { cpu: 'lots' })]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expectErrorWithWarning(
      result,
      'vpa demo/web not applied: malformed quantity: invalid quantity "lots": expected a number such as 1, 1.5 or .5 before any suffix',
    );
    expect(patched(pod, result)).toEqual(
      expectedFrom(pod, {
        [ORIGINALS]: '{"app":{"requests":{"cpu":"lots"},"limits":{}}}',
      }),
    );
  });

  it('a malformed quantity in the VPA: original resources only', async () => {
    const pod = podWith([containerWith('app', { cpu: '1' })]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1 core' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(result.outcome).toBe('error');
    expect(result.message).toMatch(
      /^vpa demo\/web not applied: malformed quantity: invalid quantity "1 core"/,
    );
    expect(patched(pod, result)).toEqual(
      expectedFrom(pod, {
        [ORIGINALS]: '{"app":{"requests":{"cpu":"1"},"limits":{}}}',
      }),
    );
  });

  it('a result the API server would refuse (negative request) leaves the pod unchanged', async () => {
    const pod = podWith([containerWith('app', { cpu: '1' })]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '-1' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expectErrorWithWarning(
      result,
      'vpa demo/web not applied: container 0: negative cpu request -1',
    );
    expect(patched(pod, result)).toEqual(
      expectedFrom(pod, {
        [ORIGINALS]: '{"app":{"requests":{"cpu":"1"},"limits":{}}}',
      }),
    );
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('cache not synced');
      },
    ],
    ['rejects', () => Promise.reject(new Error('cache not synced'))],
  ])(
    'a VPA lookup that %s: pod unchanged, with a warning',
    async (_how, lookup) => {
      const pod = podWith([webApp()]);
      const result = await admit(podReview(pod), {
        ...contextWith(),
        vpasInNamespace: lookup as never,
      });
      expectErrorWithWarning(result, 'VPA lookup failed: cache not synced');
      expect(patched(pod, result)).toEqual(pod);
    },
  );

  it('a LimitRange lookup that fails: original resources only', async () => {
    const pod = podWith([webApp()]);
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }]);
    const result = await admit(podReview(pod), {
      ...contextWith({ vpas: [candidate(vpa)] }),
      limitRanges: () => Promise.reject(new Error('forbidden')),
    });
    expectErrorWithWarning(
      result,
      'vpa demo/web not applied: LimitRange lookup failed: forbidden',
    );
    expect(patched(pod, result)).toEqual(
      expectedFrom(pod, { [ORIGINALS]: appOriginals }),
    );
  });

  it('a lookup returning something other than a list', async () => {
    const pod = podWith([webApp()]);
    const result = await admit(podReview(pod), {
      ...contextWith(),
      vpasInNamespace: () => Promise.resolve({} as never),
    });
    expect(result.message).toBe(
      'VPA lookup failed: returned object, not a list',
    );
    expect(patched(pod, result)).toEqual(pod);
  });

  it('a patch that would not apply is dropped, never sent', async () => {
    // JSON.parse makes `__proto__` a plain key, which fast-json-patch refuses to patch.
    const vpa = JSON.parse(
      '{"metadata":{"name":"web"},"spec":{"targetRef":{"kind":"Deployment","name":"web"},"resourcePolicy":{"containerPolicies":[{"containerName":"*","controlledResources":["__proto__"],"controlledValues":"RequestsOnly"}]}},"status":{"recommendation":{"containerRecommendations":[{"containerName":"app","target":{"__proto__":"1"}}]}}}',
    );
    const pod = podWith([containerWith('app', { cpu: '1' })]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expectAllowed(result);
    expect(result.outcome).toBe('error');
    expect(result.message).toMatch(/^pod left unchanged, patch dropped: /);
    expect(result.review?.response.patch).toBeUndefined();
    expect(patched(pod, result)).toEqual(pod);
  });

  it('annotations that would exceed 256 KiB are not added', async () => {
    const pod = podWith([containerWith('app')], {
      annotations: { big: 'x'.repeat(256 * 1024 - 10) },
    });
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }]);
    const result = await admitPod(pod, { vpas: [candidate(vpa)] });
    expect(result.outcome).toBe('error');
    expect(result.message).toMatch(
      /^pod left unchanged, patch dropped: annotations would total \d+ bytes, over the API server's limit of 262144/,
    );
    expect(patched(pod, result)).toEqual(pod);
  });

  it.each([
    [
      'UPDATE',
      { operation: 'UPDATE' },
      'skipped',
      'operation UPDATE: only CREATE is mutated',
    ],
    [
      'a subresource',
      { subResource: 'status' },
      'skipped',
      'v1 pods/status: subresources are not mutated',
    ],
    [
      'another version',
      {
        resource: { group: '', version: 'v2', resource: 'pods' },
        kind: { group: '', version: 'v2', kind: 'Pod' },
      },
      'error',
      'only v1 pods are supported, got version v2',
    ],
    [
      'no object',
      { object: undefined },
      'error',
      'malformed pod: request.object missing',
    ],
  ])('%s: allowed, no patch', async (_case, overrides, outcome, message) => {
    const pod = podWith([webApp()]);
    const result = await admit(podReview(pod, overrides), contextWith());
    expectAllowed(result);
    expect(result).toMatchObject({ outcome, message });
    expect(patched(pod, result)).toEqual(pod);
    expect(result.review?.response.warnings).toEqual(
      outcome === 'error' ? [`VPA webhook: ${message}`] : undefined,
    );
  });

  it.each([
    [{ spec: { containers: {} } }, 'spec.containers: must be a list, got {}'],
    [
      { spec: { containers: [{ name: 7 }] } },
      'spec.containers[0].name: must be a string, got 7',
    ],
    [
      {
        spec: {
          containers: [{ name: 'a', resources: { requests: { cpu: 1 } } }],
        },
      },
      'spec.containers[0].resources.requests["cpu"]: must be a string, got 1',
    ],
    [
      { metadata: [], spec: { containers: [] } },
      'metadata: must be an object, got []',
    ],
    [
      { metadata: { labels: { app: null } }, spec: { containers: [] } },
      'metadata.labels["app"]: must be a string, got null',
    ],
    [{ metadata: {} }, 'spec missing'],
    ['pod', 'request.object: must be an object, got "pod"'],
  ])('a malformed pod %j is allowed unchanged', async (pod, problem) => {
    const result = await admitPod(pod);
    expectErrorWithWarning(result, `malformed pod: ${problem}`);
    expect(patched(pod, result)).toEqual(pod);
  });

  it('accepts request.kind alone to recognise a pod', async () => {
    const pod = podWith([webApp()]);
    const result = await admit(
      podReview(pod, { resource: undefined }),
      contextWith(),
    );
    expect(result).toMatchObject({ resource: 'Pod', outcome: 'skipped' });
    expect(patched(pod, result)).toEqual(pod);
  });
});
