import type {
  V1Container,
  V1ContainerStatus,
  V1ObjectMeta,
  V1Pod,
} from '@kubernetes/client-node';
import { PodAnnotation } from '@tandem/vpa-api';
import type { TemplateOwner } from './pod-templates.js';

/**
 * The annotations the adapter reads (`podOriginals` in @tandem/custom-metrics): the
 * webhook's record of the resources declared at admission. Every other one (kubectl's
 * last-applied configuration, often the largest) is dropped.
 */
const READ_ANNOTATIONS: readonly string[] = [PodAnnotation.originalResources];

/** `object` without its undefined properties: a field the source lacks stays absent. */
function present<T extends object>(object: T): T {
  return Object.fromEntries(
    Object.entries(object).filter(([, value]) => value !== undefined),
  ) as T;
}

/** What the cache itself needs of any object: its key and its version. */
function cacheMetadata(metadata: V1ObjectMeta | undefined): V1ObjectMeta {
  return present({
    name: metadata?.name,
    namespace: metadata?.namespace,
    uid: metadata?.uid,
    resourceVersion: metadata?.resourceVersion,
  });
}

const containerResources = (container: V1Container): V1Container =>
  present({
    name: container.name,
    resources: container.resources,
    restartPolicy: container.restartPolicy,
  });

function readAnnotations(
  annotations: Record<string, string> | undefined,
): Record<string, string> | undefined {
  const kept = READ_ANNOTATIONS.flatMap((name) => {
    const value = annotations?.[name];
    return value === undefined ? [] : [[name, value] as const];
  });
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

/**
 * A pod as the adapter keeps it: what `podView` and the template lookup read (name,
 * namespace, labels, the read annotations, the controller reference, deletionTimestamp,
 * phase and the Ready condition, each container's name, resources and restartPolicy) and
 * each container status's name and resources (what an in-place resize applied), besides
 * the cache's own uid and resourceVersion. Still a V1Pod, so its readers are unchanged;
 * a container status lacks the fields V1ContainerStatus requires and nothing here reads.
 */
export function reducedPod(pod: V1Pod): V1Pod {
  const { metadata, spec, status } = pod;
  const controller = metadata?.ownerReferences?.find(
    (reference) => reference.controller === true,
  );
  return present({
    metadata: present({
      ...cacheMetadata(metadata),
      labels: metadata?.labels,
      annotations: readAnnotations(metadata?.annotations),
      ownerReferences: controller === undefined ? undefined : [controller],
      deletionTimestamp: metadata?.deletionTimestamp,
    }),
    spec:
      spec === undefined
        ? undefined
        : present({
            containers: spec.containers.map(containerResources),
            initContainers: spec.initContainers?.map(containerResources),
          }),
    status:
      status === undefined
        ? undefined
        : present({
            phase: status.phase,
            conditions: status.conditions
              ?.filter((condition) => condition.type === 'Ready')
              .map(({ type, status: value }) => ({ type, status: value })),
            containerStatuses: status.containerStatuses?.map(
              ({ name, resources }) =>
                present({ name, resources }) as V1ContainerStatus,
            ),
          }),
  });
}

/**
 * A pod's controller (ReplicaSet, StatefulSet, DaemonSet, Job) as the adapter keeps it:
 * its cache metadata and its template's containers' names and resources, what
 * `containersOf` hands `podView`.
 */
export function reducedController(owner: TemplateOwner): TemplateOwner {
  const containers = owner.spec?.template?.spec?.containers;
  return present({
    metadata: cacheMetadata(owner.metadata),
    spec:
      containers === undefined
        ? undefined
        : {
            template: {
              spec: {
                containers: containers.map(({ name, resources }) =>
                  present({ name, resources }),
                ),
              },
            },
          },
  });
}
