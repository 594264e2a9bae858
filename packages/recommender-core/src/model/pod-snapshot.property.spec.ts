import fc from 'fast-check';
import {
  currentContainerResources,
  type Container,
  parseCpuMillicores,
  parseMemoryBytes,
  parseOriginalResources,
  type Pod,
  PodAnnotation,
  type ResourceList,
  vpaContainers,
} from '@tandem/vpa-api';
import type { PodSnapshot } from './cluster-model.js';
import { podSnapshotFromPod } from './pod-snapshot.js';

/**
 * What podSnapshotFromPod read of a pod's containers before, through the general readers:
 * every container's place from `vpaContainers`, its current resources parsed whole by
 * `currentContainerResources`, its declared requests spread in; or the error's message.
 */
function generalReading(
  pod: Pod,
): Pick<PodSnapshot, 'containers' | 'initContainerNames'> | { error: string } {
  try {
    const text = pod.metadata?.annotations?.[PodAnnotation.originalResources];
    const parsed =
      text === undefined ? undefined : parseOriginalResources(text);
    const original = parsed instanceof Error ? undefined : parsed;
    const declaredOf = (requests: ResourceList | undefined) =>
      requests?.['cpu'] === undefined || requests['memory'] === undefined
        ? {}
        : {
            declared: {
              cpu: parseCpuMillicores(requests['cpu']),
              memory: parseMemoryBytes(requests['memory']),
            },
          };
    return {
      containers: vpaContainers(pod).map(({ container }) => ({
        name: container.name,
        ...declaredOf(
          original?.get(container.name)?.requests ??
            container.resources?.requests,
        ),
        memoryRequestBytes: Number(
          currentContainerResources(pod, container.name)
            .requests.get('memory')
            ?.value() ?? 0n,
        ),
      })),
      initContainerNames: (pod.spec.initContainers ?? [])
        .filter((container) => container.restartPolicy !== 'Always')
        .map((container) => container.name),
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const quantity = fc.constantFrom(
  '100m',
  '1',
  '1.5',
  '128Mi',
  '2Gi',
  '0',
  'lots',
);
const resourceList = fc.option(
  fc.dictionary(fc.constantFrom('cpu', 'memory', 'nvidia.com/gpu'), quantity),
  { nil: undefined },
);
const resources = fc.option(
  fc.record(
    { requests: resourceList, limits: resourceList },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);
const containerName = fc.constantFrom('app', 'sidecar', 'init', 'proxy');
const container: fc.Arbitrary<Container> = fc.record(
  {
    name: containerName,
    resources,
    restartPolicy: fc.constantFrom('Always', 'OnFailure'),
  },
  { requiredKeys: ['name'] },
);
const uniqueContainers = fc.uniqueArray(container, {
  selector: ({ name }) => name,
  maxLength: 3,
});
const pods: fc.Arbitrary<Pod> = fc
  .record({
    containers: uniqueContainers,
    init: fc.option(uniqueContainers, { nil: undefined }),
    statuses: fc.array(
      fc.record({
        name: containerName,
        resources: fc.oneof(resources, fc.constant(null)),
      }),
      { maxLength: 2 },
    ),
    original: fc.option(
      fc.dictionary(
        containerName,
        fc.record({ requests: resourceList, limits: resourceList }),
      ),
      { nil: undefined },
    ),
  })
  .map(({ containers, init, statuses, original }) => ({
    metadata: {
      namespace: 'shop',
      name: 'web-1',
      labels: { app: 'web' },
      ...(original === undefined
        ? {}
        : {
            annotations: {
              [PodAnnotation.originalResources]: JSON.stringify(original),
            },
          }),
    },
    spec: {
      // Names unique across both lists, as the API server requires.
      containers,
      ...(init === undefined
        ? {}
        : {
            initContainers: init.filter(
              ({ name }) => !containers.some((c) => c.name === name),
            ),
          }),
    },
    status: {
      phase: 'Running',
      containerStatuses: statuses as NonNullable<
        Pod['status']
      >['containerStatuses'],
    },
  }));

describe('podSnapshotFromPod (fast-check)', () => {
  it('reads every pod as the general readers do, errors and their messages included', () => {
    fc.assert(
      fc.property(pods, (pod) => {
        const read = podSnapshotFromPod(pod);
        const general = generalReading(pod);
        if (read.ok)
          expect({
            containers: read.snapshot.containers,
            initContainerNames: read.snapshot.initContainerNames,
          }).toEqual(general);
        else
          expect(read.error.message).toBe(
            'error' in general ? `pod shop/web-1: ${general.error}` : read,
          );
      }),
      { numRuns: 500 },
    );
  });
});
