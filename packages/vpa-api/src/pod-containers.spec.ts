import fc from 'fast-check';
import {
  currentContainerResources,
  currentResourcesObject,
  isNativeSidecar,
  vpaContainerSpecs,
  vpaContainers,
  withoutNativeSidecars,
} from './pod-containers.js';
import { computeContainerResources } from './pod-resources.js';
import type { Container, Pod, VerticalPodAutoscaler } from './types.js';

const app: Container = { name: 'app', resources: { requests: { cpu: '1' } } };
const migrate: Container = {
  name: 'migrate',
  resources: { requests: { cpu: '2' } },
};
const proxy: Container = {
  name: 'proxy',
  restartPolicy: 'Always',
  resources: { requests: { cpu: '100m' }, limits: { cpu: '200m' } },
};

function pod(containers: Container[], initContainers: Container[]): Pod {
  return { spec: { containers, initContainers } };
}

const vpa: VerticalPodAutoscaler = {
  spec: { targetRef: { kind: 'Deployment', name: 'web' } },
  status: {
    recommendation: {
      containerRecommendations: ['app', 'migrate', 'proxy'].map(
        (containerName) => ({ containerName, target: { cpu: '300m' } }),
      ),
    },
  },
};

describe('vpaContainers', () => {
  it('lists the app containers, then the native sidecars at their init index', () => {
    expect(
      vpaContainers(pod([app], [migrate, proxy])).map(
        ({ field, index, container }) => `${field}/${index}/${container.name}`,
      ),
    ).toEqual(['containers/0/app', 'initContainers/1/proxy']);
  });

  it('never holds a plain init container, whatever the pod (fast-check)', () => {
    const containerArb = fc.record({
      name: fc.string({ minLength: 1, maxLength: 4 }),
      restartPolicy: fc.constantFrom(undefined, 'Always', 'OnFailure', 'Never'),
    });
    fc.assert(
      fc.property(
        fc.array(containerArb, { maxLength: 4 }),
        fc.array(containerArb, { maxLength: 4 }),
        (containers, initContainers) => {
          const listed = vpaContainers(pod(containers, initContainers));
          const init = listed.filter((c) => c.field === 'initContainers');
          expect(
            init.every(({ container }) => isNativeSidecar(container)),
          ).toBe(true);
          expect(init.map(({ index }) => initContainers[index])).toEqual(
            init.map(({ container }) => container),
          );
          expect(listed.length - init.length).toBe(containers.length);
          expect(
            vpaContainers(
              withoutNativeSidecars(pod(containers, initContainers)),
            ).length,
          ).toBe(containers.length);
        },
      ),
    );
  });

  it("lists the same containers as vpaContainerSpecs, which hands back the pod's own list without sidecars (fast-check)", () => {
    const containerArb = fc.record({
      name: fc.string({ minLength: 1, maxLength: 4 }),
      restartPolicy: fc.constantFrom(undefined, 'Always', 'OnFailure'),
    });
    fc.assert(
      fc.property(
        fc.array(containerArb, { maxLength: 4 }),
        fc.option(fc.array(containerArb, { maxLength: 4 }), {
          nil: undefined,
        }),
        (containers, initContainers) => {
          const listed: Pod = { spec: { containers, initContainers } };
          const specs = vpaContainerSpecs(listed);
          expect(specs).toEqual(
            vpaContainers(listed).map(({ container }) => container),
          );
          if (!(initContainers ?? []).some(isNativeSidecar))
            expect(specs).toBe(containers);
        },
      ),
    );
  });
});

describe('withoutNativeSidecars', () => {
  it('makes one view a pod object, so caches keyed by pod object keep hitting', () => {
    const withSidecar = pod([app], [migrate, proxy]);
    const view = withoutNativeSidecars(withSidecar);
    expect(view).not.toBe(withSidecar);
    expect(withoutNativeSidecars(withSidecar)).toBe(view);
    expect(view.spec.initContainers?.[1]).toEqual({
      name: 'proxy',
      resources: proxy.resources,
    });
    const plain = pod([app], [migrate]);
    expect(withoutNativeSidecars(plain)).toBe(plain);
  });
});

describe('currentContainerResources', () => {
  it('reads the object currentResourcesObject finds, and nothing where it finds none', () => {
    const resized: Pod = {
      spec: { containers: [app, { name: 'bare' }, { ...app, name: 'odd' }] },
      status: {
        containerStatuses: [
          { name: 'app', resources: { requests: { cpu: '3' } } },
          { name: 'odd', resources: null },
        ],
      },
    };
    expect(currentResourcesObject(resized, 'app')).toEqual({
      requests: { cpu: '3' },
    });
    expect(currentResourcesObject(resized, 'bare')).toBeUndefined();
    expect(currentResourcesObject(resized, 'odd')).toBe(app.resources);
    expect(currentResourcesObject(resized, 'none')).toBeUndefined();
    expect(currentContainerResources(resized, 'bare').requests.size).toBe(0);
  });

  it("reads a sidecar's resources from initContainerStatuses, else its spec", () => {
    const resized: Pod = {
      ...pod([app], [proxy]),
      status: {
        initContainerStatuses: [
          { name: 'proxy', resources: { requests: { cpu: '150m' } } },
        ],
      },
    };
    expect(
      currentContainerResources(resized, 'proxy')
        .requests.get('cpu')
        ?.toString(),
    ).toBe('150m');
    expect(
      currentContainerResources(pod([app], [proxy]), 'proxy')
        .limits.get('cpu')
        ?.toString(),
    ).toBe('200m');
  });

  it('parses a resources object once while it is among the last few, and a new object (a new pod version) afresh', () => {
    const first = currentContainerResources(pod([app], []), 'app');
    // A copy of the pod shares the container object, and so its parse.
    expect(currentContainerResources(pod([app], []), 'app')).toBe(first);
    const resized = currentContainerResources(
      pod([{ ...app, resources: { requests: { cpu: '2' } } }], []),
      'app',
    );
    expect(resized).not.toBe(first);
    expect(resized.requests.get('cpu')?.toString()).toBe('2');
    expect(first.requests.get('cpu')?.toString()).toBe('1');
    const none = { requests: new Map(), limits: new Map() };
    expect(
      currentContainerResources(pod([{ name: 'app' }], []), 'app'),
    ).toEqual(none);
    // Only the last few are kept: after others, the first is parsed again, alike.
    for (const cpu of ['1', '2', '3', '4', '5'])
      currentContainerResources(
        pod([{ ...app, resources: { requests: { cpu } } }], []),
        'app',
      );
    const again = currentContainerResources(pod([app], []), 'app');
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    // null where a malformed object has no resources reads as none, as before.
    const nulls = { name: 'app', resources: null } as unknown as Container;
    expect(currentContainerResources(pod([nulls], []), 'app')).toEqual(none);
  });
});

describe('computeContainerResources with native sidecars', () => {
  it('sets the sidecar like a container (limit in proportion) and never a plain init container', () => {
    expect(
      computeContainerResources(pod([app], [migrate, proxy]), vpa),
    ).toEqual([
      {
        containerName: 'app',
        requests: { cpu: '300m' },
        annotations: [],
      },
      {
        containerName: 'proxy',
        requests: { cpu: '300m' },
        limits: { cpu: '600m' },
        annotations: ['memory: limit NOT set since originalLimit is nil or 0'],
      },
    ]);
  });

  it('leaves the sidecar alone in the view of a component with the gate off', () => {
    expect(
      computeContainerResources(
        withoutNativeSidecars(pod([app], [migrate, proxy])),
        vpa,
      ).map((resources) => resources.containerName),
    ).toEqual(['app']);
  });
});
