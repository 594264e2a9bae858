import type {
  V1Container,
  V1ManagedFieldsEntry,
  V1Pod,
} from '@kubernetes/client-node';
import fc from 'fast-check';
import {
  METRIC_NAMES,
  podMetric,
  type ContainerUsage,
} from '@tandem/custom-metrics';
import { sharedParts } from '@tandem/kube';
import { PodAnnotation } from '@tandem/vpa-api';
import type { TemplateOwner } from './pod-templates.js';
import { isReady, podView } from './pod-view.js';
import { reducedController, reducedPod } from './reduced-objects.js';

const CONTAINER_NAMES = ['app', 'sidecar', 'proxy', 'log-shipper'];

const resourceList = fc.record(
  {
    cpu: fc.constantFrom('50m', '100m', '250m', '1', '1500m'),
    memory: fc.constantFrom('64Mi', '128Mi', '500M', '1Gi'),
  },
  { requiredKeys: [] },
);
const resources = fc.record(
  { requests: resourceList, limits: resourceList },
  { requiredKeys: [] },
);

/** A container with what a real one carries besides its resources. */
const container = (name: string) =>
  fc.record(
    {
      name: fc.constant(name),
      image: fc.constant(`registry.example/${name}:1.2.3`),
      resources,
      restartPolicy: fc.constant('Always'),
      env: fc.array(fc.record({ name: fc.string(), value: fc.string() }), {
        maxLength: 3,
      }),
      args: fc.array(fc.string(), { maxLength: 3 }),
      livenessProbe: fc.constant({ httpGet: { path: '/healthz', port: 8080 } }),
    },
    { requiredKeys: ['name'] },
  );

const containers = (names: readonly string[]) =>
  fc
    .uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 3 })
    .chain((chosen) => fc.tuple(...chosen.map(container)));

const managedFields: fc.Arbitrary<V1ManagedFieldsEntry[]> = fc.constant([
  {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:ownerReferences': {} } },
  },
]);

/** The webhook's record: of every container, of some, or malformed. */
const originalResources = (of: readonly V1Container[]) =>
  fc.oneof(
    fc.subarray([...of]).map((recorded) =>
      JSON.stringify(
        Object.fromEntries(
          recorded.map((c) => [
            c.name,
            {
              requests: c.resources?.requests ?? {},
              limits: c.resources?.limits ?? {},
            },
          ]),
        ),
      ),
    ),
    fc.constant('{not json'),
  );

const pod: fc.Arbitrary<V1Pod> = fc
  .record({
    containers: containers(CONTAINER_NAMES),
    initContainers: fc.option(containers(['init', 'mesh']), { nil: undefined }),
  })
  .chain(({ containers: main, initContainers }) =>
    fc.record(
      {
        apiVersion: fc.constant('v1'),
        kind: fc.constant('Pod'),
        metadata: fc.record(
          {
            name: fc.constantFrom('web-1', 'web-2'),
            namespace: fc.constant('shop'),
            uid: fc.uuid(),
            resourceVersion: fc.nat().map(String),
            labels: fc.dictionary(
              fc.constantFrom('app', 'tier', 'pod-template-hash'),
              fc.constantFrom('web', 'api', '5d8f'),
            ),
            annotations: fc.record(
              {
                [PodAnnotation.originalResources]: originalResources(main),
                [PodAnnotation.vpaUpdates]: fc.constant(
                  'Pod resources updated by web: container 0: cpu request',
                ),
                'kubectl.kubernetes.io/last-applied-configuration': fc.json(),
              },
              { requiredKeys: [] },
            ),
            ownerReferences: fc.array(
              fc.record({
                apiVersion: fc.constant('apps/v1'),
                kind: fc.constantFrom('ReplicaSet', 'StatefulSet', 'Job'),
                name: fc.constantFrom('web-5d8f', 'web'),
                uid: fc.uuid(),
                controller: fc.boolean(),
              }),
              { maxLength: 2 },
            ),
            deletionTimestamp: fc.constant(
              '2026-11-26T16:00:00Z' as unknown as Date,
            ),
            managedFields,
          },
          {
            requiredKeys: ['name', 'namespace', 'uid', 'resourceVersion'],
          },
        ),
        spec: fc.constant({
          containers: main,
          ...(initContainers === undefined ? {} : { initContainers }),
          nodeName: 'node-1',
          serviceAccountName: 'web',
        }),
        status: fc.record(
          {
            phase: fc.constantFrom('Running', 'Pending', 'Succeeded'),
            conditions: fc.array(
              fc.record({
                type: fc.constantFrom(
                  'Ready',
                  'PodScheduled',
                  'ContainersReady',
                ),
                status: fc.constantFrom('True', 'False'),
                lastTransitionTime: fc.constant(
                  '2026-11-26T15:00:00Z' as unknown as Date,
                ),
              }),
              { maxLength: 3 },
            ),
            containerStatuses: fc.constant(
              main.map((c) => ({
                name: c.name,
                image: c.image ?? '',
                imageID: 'sha256:0',
                ready: true,
                restartCount: 0,
                resources: c.resources,
              })),
            ),
            podIP: fc.constant('10.0.0.1'),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ['metadata', 'spec'] },
    ),
  );

const controller: fc.Arbitrary<TemplateOwner> = fc.record(
  {
    apiVersion: fc.constant('apps/v1'),
    kind: fc.constant('ReplicaSet'),
    metadata: fc.record({
      name: fc.constant('web-5d8f'),
      namespace: fc.constant('shop'),
      uid: fc.uuid(),
      resourceVersion: fc.nat().map(String),
      managedFields,
    }),
    spec: fc.record(
      {
        template: fc.record(
          {
            metadata: fc.constant({ labels: { app: 'web' } }),
            spec: containers(CONTAINER_NAMES).map((main) => ({
              containers: main,
            })),
          },
          { requiredKeys: ['metadata'] },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['metadata'] },
);

const usage = fc.option(
  fc.array(
    fc.record({
      name: fc.constantFrom(...CONTAINER_NAMES, 'init', 'mesh'),
      cpuCores: fc.double({ min: 0, max: 4, noNaN: true }),
      memoryBytes: fc.nat({ max: 2 ** 31 }),
    }),
    { maxLength: 5 },
  ),
  { nil: undefined },
);

const templateOf = (owner: TemplateOwner) =>
  owner.spec?.template?.spec?.containers;

describe('the adapter’s reduced objects', () => {
  it('answer every metric, for every container choice, as the raw pod and controller do', () => {
    // One table for every run, so parts are shared with the pods reduced before.
    const share = sharedParts();
    fc.assert(
      fc.property(
        pod,
        controller,
        usage,
        (raw, owner, used: ContainerUsage[] | undefined) => {
          const reduced = reducedPod(structuredClone(raw), share);
          const reducedOwner = reducedController(structuredClone(owner), share);
          const rawView = podView(raw, templateOf(owner));
          const reducedView = podView(reduced, templateOf(reducedOwner));
          for (const metric of METRIC_NAMES)
            for (const choice of [undefined, ...CONTAINER_NAMES, 'init'])
              expect(podMetric(reducedView, used, metric, choice)).toEqual(
                podMetric(rawView, used, metric, choice),
              );
          // Everything the answers read but the annotations nobody reads.
          expect({ ...reducedView, annotations: {} }).toEqual({
            ...rawView,
            annotations: {},
          });
          expect(isReady(reduced)).toBe(isReady(raw));
        },
      ),
    );
  });

  it('keeps the cache’s metadata and the controller reference, drops managedFields', () => {
    fc.assert(
      fc.property(pod, controller, (raw, owner) => {
        const reduced = reducedPod(structuredClone(raw), sharedParts());
        const { name, namespace, resourceVersion } = raw.metadata ?? {};
        expect(reduced.metadata).toMatchObject({
          name,
          namespace,
          resourceVersion,
        });
        expect(reduced.metadata).not.toHaveProperty('managedFields');
        const controllerOf = (of: V1Pod) =>
          of.metadata?.ownerReferences?.find((ref) => ref.controller);
        const { apiVersion, kind, name: ownerName } = controllerOf(raw) ?? {};
        expect(controllerOf(reduced)).toEqual(
          controllerOf(raw) && {
            apiVersion,
            kind,
            name: ownerName,
            controller: true,
          },
        );
        expect(Object.keys(reduced.metadata?.annotations ?? {})).toEqual(
          Object.keys(raw.metadata?.annotations ?? {}).filter(
            (key) => key === PodAnnotation.originalResources,
          ),
        );
        expect(reduced.status?.containerStatuses).toEqual(
          raw.status?.containerStatuses?.map(({ name: n, resources: r }) =>
            r === undefined ? { name: n } : { name: n, resources: r },
          ),
        );
        const reducedOwner = reducedController(
          structuredClone(owner),
          sharedParts(),
        );
        expect(reducedOwner.metadata).toEqual({
          name: owner.metadata?.name,
          namespace: owner.metadata?.namespace,
          resourceVersion: owner.metadata?.resourceVersion,
        });
      }),
    );
  });

  it('is smaller than the raw objects', () => {
    fc.assert(
      fc.property(pod, (raw) => {
        expect(
          JSON.stringify(reducedPod(structuredClone(raw), sharedParts()))
            .length,
        ).toBeLessThan(JSON.stringify(raw).length);
      }),
    );
  });

  it('holds what the pods of one controller have in common once', () => {
    fc.assert(
      fc.property(pod, (raw) => {
        const share = sharedParts();
        const sibling = structuredClone(raw);
        if (sibling.metadata !== undefined) sibling.metadata.name = 'web-9';
        const [first, second] = [raw, sibling].map((each) =>
          reducedPod(structuredClone(each), share),
        );
        expect(second?.metadata?.name).toBe('web-9');
        expect(second?.spec).toBe(first?.spec);
        expect(second?.status).toBe(first?.status);
        expect(second?.metadata?.labels).toBe(first?.metadata?.labels);
        expect(second?.metadata?.ownerReferences).toBe(
          first?.metadata?.ownerReferences,
        );
      }),
    );
  });

  it('keeps the template’s native sidecars beside its containers, never its plain init containers', () => {
    const resources = { requests: { cpu: '50m' } };
    const owner: TemplateOwner = {
      metadata: { name: 'web-5d8f', namespace: 'shop' },
      spec: {
        template: {
          spec: {
            initContainers: [
              { name: 'migrate', resources },
              { name: 'proxy', resources, restartPolicy: 'Always' },
            ],
            containers: [{ name: 'app', resources }],
          },
        },
      },
    };
    const reduced = reducedController(owner, sharedParts());
    expect(reduced.spec?.template?.spec?.containers).toEqual([
      { name: 'app', resources },
      { name: 'proxy', resources },
    ]);
  });
});
