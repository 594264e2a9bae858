import fc from 'fast-check';
import type { UpdaterPod } from '@tandem/update-decisions';
import {
  PodAnnotation,
  type Container,
  type ContainerStatus,
  type ResourceList,
  type ResourceRequirements,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { PodEvaluations } from './pod-evaluations.js';
import { podShape } from './pod-shape.js';

// Texts chosen to run into each other if the shape did not delimit them.
const texts = fc.constantFrom('a', 'b', '1', '1:a', '~', '(', '))', '');
const resourceList: fc.Arbitrary<ResourceList | undefined> = fc.option(
  fc.dictionary(fc.constantFrom('cpu', 'memory', '1:', '~'), texts, {
    maxKeys: 2,
  }),
  { nil: undefined },
);
const requirements: fc.Arbitrary<ResourceRequirements | undefined> = fc.option(
  fc.record({ requests: resourceList, limits: resourceList }),
  { nil: undefined },
);
const container: fc.Arbitrary<Container> = fc.record({
  name: texts,
  restartPolicy: fc.option(fc.constantFrom('Always', 'Never'), {
    nil: undefined,
  }),
  resources: requirements,
});
const status: fc.Arbitrary<ContainerStatus> = fc.record({
  name: texts,
  resources: fc.oneof(requirements, fc.constant(null)),
});
const list = <T>(item: fc.Arbitrary<T>) =>
  fc.option(fc.array(item, { maxLength: 2 }), { nil: undefined });
const annotations = fc.option(
  fc.dictionary(
    fc.constantFrom(
      PodAnnotation.vpaObservedContainers,
      `${PodAnnotation.vpaCpuStartupBoostPrefix}a`,
      PodAnnotation.vpaUpdates,
    ),
    texts,
    { maxKeys: 2 },
  ),
  { nil: undefined },
);
const pod: fc.Arbitrary<UpdaterPod> = fc
  .record({
    containers: fc.array(container, { maxLength: 2 }),
    initContainers: list(container),
    resources: requirements,
    containerStatuses: list(status),
    initContainerStatuses: list(status),
    annotations,
  })
  .map((parts) => ({
    metadata: { namespace: 'demo', name: 'p', annotations: parts.annotations },
    spec: {
      containers: parts.containers,
      initContainers: parts.initContainers,
      resources: parts.resources,
    },
    status: {
      phase: 'Running',
      containerStatuses: parts.containerStatuses,
      initContainerStatuses: parts.initContainerStatuses,
    },
  }));

/** Everything an evaluation reads of a pod: empty told apart from absent, absent read as null. */
function evaluated(pod: UpdaterPod): string {
  const absent = (value: unknown) => value ?? { absent: true };
  const resources = (value: ResourceRequirements | null | undefined) =>
    value ? [absent(value.requests), absent(value.limits)] : absent(value);
  const containers = (list: readonly Container[] | undefined) =>
    list?.map((c) => [c.name, absent(c.restartPolicy), resources(c.resources)]);
  const statuses = (list: readonly ContainerStatus[] | undefined) =>
    list?.map((s) => [s.name, resources(s.resources)]);
  const annotations = pod.metadata?.annotations;
  return JSON.stringify([
    absent(containers(pod.spec.containers)),
    absent(containers(pod.spec.initContainers)),
    absent(statuses(pod.status?.containerStatuses)),
    absent(statuses(pod.status?.initContainerStatuses)),
    resources(pod.spec.resources),
    annotations &&
      Object.entries(annotations).filter(
        ([name]) => name !== PodAnnotation.vpaUpdates,
      ),
  ]);
}

describe('podShape', () => {
  it('is the same for two pods exactly when everything an evaluation reads is', () => {
    fc.assert(
      fc.property(pod, pod, (a, b) => {
        expect(podShape(a) === podShape(b)).toBe(evaluated(a) === evaluated(b));
      }),
      { numRuns: 3000 },
    );
  });

  it('tells apart pods that differ in pod-level resources or in a sidecar, so they get their own evaluations', () => {
    const vpa: VerticalPodAutoscaler = {
      metadata: { namespace: 'demo', name: 'web', resourceVersion: '1' },
      spec: {
        targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        updatePolicy: { updateMode: 'Recreate' },
      },
      status: {
        recommendation: {
          containerRecommendations: ['app', 'proxy'].map((containerName) => ({
            containerName,
            target: { cpu: '500m' },
            lowerBound: { cpu: '500m' },
            upperBound: { cpu: '500m' },
          })),
        },
      },
    };
    const replica = (
      restartPolicy: string | undefined,
      podCpu: string | undefined,
    ): UpdaterPod => ({
      metadata: { namespace: 'demo', name: 'p' },
      spec: {
        containers: [{ name: 'app', resources: { requests: { cpu: '100m' } } }],
        initContainers: [
          {
            name: 'proxy',
            restartPolicy,
            resources: { requests: { cpu: '100m' } },
          },
        ],
        ...(podCpu && { resources: { limits: { cpu: podCpu } } }),
      },
      status: { phase: 'Running' },
    });
    const evaluations = new PodEvaluations();
    const patched = (pod: UpdaterPod) =>
      evaluations
        .evaluate(pod, vpa, [])
        .resizePatch()
        .map(({ path }) => path);
    expect(patched(replica(undefined, undefined))).toEqual([
      '/spec/containers/0/resources/requests/cpu',
    ]);
    expect(patched(replica('Always', undefined))).toEqual([
      '/spec/containers/0/resources/requests/cpu',
      '/spec/initContainers/0/resources/requests/cpu',
    ]);
    expect(patched(replica('Always', '2'))).toEqual([]);
  });
});
