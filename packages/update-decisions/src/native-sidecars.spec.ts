import fc from 'fast-check';
import { gatedNativeSidecars, type ResourceList } from '@tandem/vpa-api';
import { hadQuickOom } from './quick-oom.js';
import { guardMemoryShrink } from './memory-shrink-rail.js';
import { inPlaceResizePatch } from './resize-patch.js';
import { resourcePriority } from './resource-priority.js';
import {
  at,
  container,
  entry,
  MINUTE,
  podWith,
  vpaWith,
} from './updater.fixtures.js';
import type { UpdaterContainer, UpdaterPod } from './updater-pod.js';

function sidecar(
  name: string,
  requests: ResourceList,
  limits?: ResourceList,
): UpdaterContainer {
  return { ...container(name, requests, limits), restartPolicy: 'Always' };
}

/** App `app` (cpu 1), plain init `migrate` at index 0, sidecar `mesh` at index 1. */
function meshPod(
  mesh: UpdaterContainer = sidecar(
    'mesh',
    { memory: '100Mi' },
    { memory: '200Mi' },
  ),
  extra: Partial<UpdaterPod['status']> = {},
  annotations: Record<string, string> = {
    vpaObservedContainers: 'app, mesh',
  },
): UpdaterPod {
  const pod = podWith([container('app', { cpu: '1' })], { annotations });
  return {
    ...pod,
    spec: {
      ...pod.spec,
      initContainers: [container('migrate', { cpu: '1' }), mesh],
    },
    status: { ...pod.status, ...extra },
  };
}

const meshVpa = vpaWith([
  entry('app', { cpu: '1' }),
  entry('migrate', { cpu: '4' }),
  entry('mesh', { memory: '50Mi' }),
]);

describe('updater decisions over native sidecars (AEP-8905)', () => {
  it('resizes the sidecar under /spec/initContainers/<i>, never the plain init container', () => {
    expect(inPlaceResizePatch(meshPod(), meshVpa)).toEqual([
      {
        op: 'add',
        path: '/spec/containers/0/resources/requests/cpu',
        value: '1',
      },
      {
        op: 'add',
        path: '/spec/initContainers/1/resources/requests/memory',
        value: '50Mi',
      },
      {
        op: 'add',
        path: '/spec/initContainers/1/resources/limits/memory',
        value: '100Mi',
      },
    ]);
  });

  it("counts the sidecar's requests in the priority (memory 100Mi to 50Mi: diff 0.5)", () => {
    const priority = resourcePriority(
      meshPod(),
      meshVpa,
      meshVpa.status?.recommendation,
    );
    expect(priority).toEqual({
      scaleUp: false,
      outsideRange: false,
      diff: 0.5,
    });
  });

  it('reads the sidecar request the kubelet reports in initContainerStatuses', () => {
    const resized = meshPod(undefined, {
      initContainerStatuses: [
        { name: 'mesh', resources: { requests: { memory: '50Mi' } } },
      ],
    });
    expect(
      resourcePriority(resized, meshVpa, meshVpa.status?.recommendation).diff,
    ).toBe(0);
  });

  it('with the gate off the sidecar is a plain init container: no patch, no priority', () => {
    const pod = gatedNativeSidecars(meshPod(), {});
    expect(inPlaceResizePatch(pod, meshVpa).map(({ path }) => path)).toEqual([
      '/spec/containers/0/resources/requests/cpu',
    ]);
    expect(
      resourcePriority(pod, meshVpa, meshVpa.status?.recommendation).diff,
    ).toBe(0);
  });

  it("keeps the memory-shrink rail on a sidecar's limit", () => {
    const patch = inPlaceResizePatch(meshPod(), meshVpa);
    const guarded = guardMemoryShrink(
      meshPod(),
      patch,
      new Map([['mesh', 95 * 2 ** 20]]),
      0.1,
    );
    expect(guarded.kept.map(({ container }) => container)).toEqual(['mesh']);
    // 95Mi used × 1.1 is over the 100Mi limit proposed: the limit stays, the request goes.
    expect(guarded.patch.map(({ path }) => path)).toEqual([
      '/spec/containers/0/resources/requests/cpu',
      '/spec/initContainers/1/resources/requests/memory',
    ]);
  });

  it("a sidecar's quick OOM in initContainerStatuses counts; a plain init container's never", () => {
    const oom = (name: string) =>
      meshPod(
        undefined,
        {
          initContainerStatuses: [
            {
              name,
              lastState: {
                terminated: {
                  reason: 'OOMKilled',
                  startedAt: at(-2 * MINUTE),
                  finishedAt: at(-MINUTE),
                },
              },
            },
          ],
        },
        {},
      );
    expect(hadQuickOom(oom('mesh'), meshVpa, 10 * MINUTE)).toBe(true);
    expect(hadQuickOom(oom('migrate'), meshVpa, 10 * MINUTE)).toBe(false);
  });

  it('never writes to a plain init container, whatever the pod (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(undefined, 'Always', 'OnFailure'), {
          maxLength: 5,
        }),
        fc.integer({ min: 1, max: 4000 }),
        (policies, milli) => {
          const inits = policies.map((restartPolicy, i) => ({
            ...container(`init-${i}`, { cpu: '100m' }),
            ...(restartPolicy !== undefined && { restartPolicy }),
          }));
          const pod = podWith([container('app', { cpu: '100m' })]);
          pod.spec.initContainers = inits;
          const vpa = vpaWith(
            ['app', ...inits.map(({ name }) => name)].map((name) =>
              entry(name, { cpu: `${milli}m` }),
            ),
          );
          for (const { path } of inPlaceResizePatch(pod, vpa)) {
            const match = /^\/spec\/initContainers\/(\d+)\//.exec(path);
            if (match) expect(policies[Number(match[1])]).toBe('Always');
          }
        },
      ),
    );
  });
});
