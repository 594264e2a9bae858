import fc from 'fast-check';
import {
  currentContainerResources,
  parseCpuMillicores,
  parseMemoryBytes,
  parseOriginalResources,
  type Pod,
  PodAnnotation,
  type ResourceList,
  vpaContainers,
} from '@tandem/vpa-api';
import type { PodSnapshot } from './cluster-model.js';
import { pods } from './pod.fixtures.js';
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
