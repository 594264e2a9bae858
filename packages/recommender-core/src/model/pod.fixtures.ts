import fc from 'fast-check';
import { type Container, type Pod, PodAnnotation } from '@tandem/vpa-api';

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
/**
 * Pods of up to three containers and init containers (native sidecars or not), with or
 * without requests, limits, the original-resources annotation and container statuses
 * reporting resources, some quantities malformed.
 */
export const pods: fc.Arbitrary<Pod> = fc
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
