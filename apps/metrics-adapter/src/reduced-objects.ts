import type {
  V1ContainerStatus,
  V1OwnerReference,
  V1Pod,
  V1PodStatus,
} from '@kubernetes/client-node';
import {
  cacheMetadata,
  podContainerResources,
  podMetadata,
  present,
  type SharePart,
  sharedOrAbsent,
} from '@tandem/kube';
import { PodAnnotation } from '@tandem/vpa-api';
import type { TemplateOwner } from './pod-templates.js';

/**
 * The annotations the adapter reads (`podOriginals` in @tandem/custom-metrics): the
 * webhook's record of the resources declared at admission. Every other one (kubectl's
 * last-applied configuration, often the largest) is dropped.
 */
const READ_ANNOTATIONS: readonly string[] = [PodAnnotation.originalResources];

/** The controller reference as the template lookup reads it: kind and name. */
function controllerReference(
  references: readonly V1OwnerReference[] | undefined,
): V1OwnerReference[] | undefined {
  const controller = references?.find(
    (reference) => reference.controller === true,
  );
  if (controller === undefined) return undefined;
  const { apiVersion, kind, name } = controller;
  return [{ apiVersion, kind, name, controller: true } as V1OwnerReference];
}

function podStatus(status: V1PodStatus): V1PodStatus {
  return present({
    phase: status.phase,
    conditions: status.conditions
      ?.filter((condition) => condition.type === 'Ready')
      .map(({ type, status: value }) => ({ type, status: value })),
    containerStatuses: status.containerStatuses?.map(
      ({ name, resources }) =>
        present({ name, resources }) as V1ContainerStatus,
    ),
  });
}

/**
 * A pod as the adapter keeps it: what `podView` and the template lookup read (name,
 * namespace, labels, the read annotations, the controller reference's kind and name,
 * deletionTimestamp, phase and the Ready condition, each container's name, resources and
 * restartPolicy) and each container status's name and resources (what an in-place resize
 * applied), besides the cache's own resourceVersion. Everything but the name, the
 * resourceVersion and the deletionTimestamp is the same for the pods of one controller
 * in the same state, so it goes through `share` and is held once. Still a V1Pod, so its
 * readers are unchanged; the controller reference lacks its uid and a container status
 * the fields V1ContainerStatus requires, neither read here.
 */
export function reducedPod(pod: V1Pod, share: SharePart): V1Pod {
  const { metadata, spec, status } = pod;
  return present({
    metadata: present({
      ...podMetadata(metadata, share, READ_ANNOTATIONS),
      ownerReferences: sharedOrAbsent(
        share,
        controllerReference(metadata?.ownerReferences),
      ),
      deletionTimestamp: metadata?.deletionTimestamp,
    }),
    spec: podContainerResources(spec, share),
    status: status === undefined ? undefined : share(podStatus(status)),
  });
}

/**
 * A pod's controller (ReplicaSet, StatefulSet, DaemonSet, Job) as the adapter keeps it:
 * its cache metadata and its template's containers' and native sidecars' names and
 * resources, what `containersOf` hands `podView`, shared with every controller of the same
 * template.
 */
export function reducedController(
  owner: TemplateOwner,
  share: SharePart,
): TemplateOwner {
  const spec = owner.spec?.template?.spec;
  // The template's native sidecars join its containers: a pod without the originals
  // annotation measures a sidecar the VPA rewrote (ADR 0033) against its declared values too.
  const containers =
    spec?.containers === undefined
      ? undefined
      : [
          ...spec.containers,
          ...(spec.initContainers ?? []).filter(
            (init) => init.restartPolicy === 'Always',
          ),
        ];
  return present({
    metadata: cacheMetadata(owner.metadata),
    spec:
      containers === undefined
        ? undefined
        : share({
            template: {
              spec: {
                containers: containers.map(({ name, resources }) =>
                  present({ name, resources }),
                ),
              },
            },
          }),
  });
}
