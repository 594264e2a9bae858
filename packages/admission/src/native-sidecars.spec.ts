import fc from 'fast-check';
import { admit } from './admit.js';
import {
  candidate,
  containerWith,
  contextWith,
  ORIGINALS,
  patched,
  patchOf,
  podReview,
  podWith,
  vpaWith,
  type RawContainer,
} from './admission.fixtures.js';

const NATIVE_SIDECAR_ON = { NativeSidecar: true };

function sidecar(
  name: string,
  requests: Record<string, string>,
  limits?: Record<string, string>,
): RawContainer {
  return { ...containerWith(name, requests, limits), restartPolicy: 'Always' };
}

const meshPod = () =>
  podWith([containerWith('app', { cpu: '100m' })], {
    initContainers: [
      containerWith('migrate', { cpu: '1' }),
      sidecar('mesh', { memory: '64Mi' }, { memory: '128Mi' }),
    ],
  });

const meshVpa = vpaWith([
  { containerName: 'app', target: { cpu: '200m' } },
  { containerName: 'migrate', target: { cpu: '2' } },
  { containerName: 'mesh', target: { memory: '96Mi' } },
]);

describe('admit: native sidecars with --feature-gates=NativeSidecar=true', () => {
  it('sets the sidecar at /spec/initContainers/<i>/resources, limit in proportion; the plain init container is left alone', async () => {
    const pod = meshPod();
    const result = await admit(
      podReview(pod),
      contextWith({
        vpas: [candidate(meshVpa)],
        featureGates: NATIVE_SIDECAR_ON,
      }),
    );
    expect(result.outcome).toBe('applied');
    expect(
      patchOf(result)
        .map(({ path }) => path)
        .filter((path) => path.startsWith('/spec')),
    ).toEqual([
      '/spec/containers/0/resources/requests/cpu',
      '/spec/initContainers/1/resources/requests/memory',
      '/spec/initContainers/1/resources/limits/memory',
    ]);
    const after = patched(pod, result) as {
      metadata: { annotations: Record<string, string> };
      spec: { initContainers: RawContainer[] };
    };
    expect(after.spec.initContainers[0]).toEqual(
      containerWith('migrate', { cpu: '1' }),
    );
    expect(after.spec.initContainers[1]?.resources).toEqual({
      requests: { memory: '96Mi' },
      limits: { memory: '192Mi' },
    });
    expect(after.metadata.annotations).toEqual({
      [ORIGINALS]:
        '{"migrate":{"requests":{"cpu":"1"},"limits":{}},"mesh":{"requests":{"memory":"64Mi"},"limits":{"memory":"128Mi"}},"app":{"requests":{"cpu":"100m"},"limits":{}}}',
      vpaUpdates:
        'Pod resources updated by web: container 0: cpu request; init-sidecar 1: cpu: limit NOT set since originalLimit is nil or 0, memory request, memory limit',
      vpaObservedContainers: 'app, mesh',
    });
  });

  it('caps the sidecar at the policy maxAllowed, as a container', async () => {
    const vpa = vpaWith(
      [{ containerName: 'mesh', target: { memory: '1Gi' } }],
      {
        policies: [{ containerName: 'mesh', maxAllowed: { memory: '100Mi' } }],
      },
    );
    const result = await admit(
      podReview(meshPod()),
      contextWith({ vpas: [candidate(vpa)], featureGates: NATIVE_SIDECAR_ON }),
    );
    expect(result.message).toBe(
      'applied vpa demo/web: init-sidecar 1: memory capped to maxAllowed, cpu: limit NOT set since originalLimit is nil or 0, memory request, memory limit',
    );
  });

  it('with the gate off (the default) the sidecar is neither set nor observed', async () => {
    const result = await admit(
      podReview(meshPod()),
      contextWith({ vpas: [candidate(meshVpa)] }),
    );
    expect(
      patchOf(result).filter(({ path }) => path.includes('initContainers')),
    ).toEqual([]);
    expect(
      (
        patched(meshPod(), result) as {
          metadata: { annotations: Record<string, string> };
        }
      ).metadata.annotations['vpaObservedContainers'],
    ).toBe('app');
  });

  it('never patches a plain init container, whatever the pod (fast-check)', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(names, { minLength: 1 }),
        fc.array(fc.constantFrom(undefined, 'Always', 'OnFailure')),
        fc.integer({ min: 1, max: 4000 }),
        async (shuffled, policies, milli) => {
          const inits = shuffled.slice(0, policies.length);
          const apps = shuffled.slice(inits.length);
          const pod = podWith(
            apps.map((name) => containerWith(name, { cpu: '100m' })),
            {
              initContainers: inits.map((name, i) => ({
                ...containerWith(name, { cpu: '100m' }),
                ...(policies[i] !== undefined && {
                  restartPolicy: policies[i],
                }),
              })),
            },
          );
          const vpa = vpaWith(
            names.map((containerName) => ({
              containerName,
              target: { cpu: `${milli}m` },
            })),
          );
          const result = await admit(
            podReview(pod),
            contextWith({
              vpas: [candidate(vpa)],
              featureGates: NATIVE_SIDECAR_ON,
            }),
          );
          const touched = new Set(
            patchOf(result).flatMap(({ path }) => {
              const match = /^\/spec\/initContainers\/(\d+)\//.exec(path);
              return match ? [Number(match[1])] : [];
            }),
          );
          for (const index of touched) {
            expect(policies[index]).toBe('Always');
          }
        },
      ),
    );
  });
});
