import type { UpdaterPod } from '@tandem/update-decisions';
import {
  PodAnnotation,
  type Container,
  type ContainerStatus,
  type ResourceList,
  type ResourceRequirements,
} from '@tandem/vpa-api';

/**
 * What of a pod its evaluation (`PodEvaluations`) depends on, as one text: two pods get the
 * same text exactly when these are the same, in the same order:
 * - each container's and init container's name, `restartPolicy` (a native sidecar is
 *   managed, a plain init container is not) and `resources`;
 * - each container status's and init container status's name and `resources`;
 * - the pod-level `resources` (what the pod declares there is left out of every
 *   recommendation);
 * - the `vpaObservedContainers` and startup-boost annotations.
 *
 * Every name and value is written with its length in front, and every list and map between
 * brackets, so no text, whatever it holds, can run into the next and two different pods
 * never share a text. Built by hand rather than with `JSON.stringify` of arrays: the first
 * cycle makes one per pod of the cluster, and the arrays were a fifth of the key's cost.
 */
export function podShape(pod: UpdaterPod): string {
  return (
    containers(pod.spec.containers) +
    containers(pod.spec.initContainers) +
    statuses(pod.status?.containerStatuses) +
    statuses(pod.status?.initContainerStatuses) +
    requirements(pod.spec.resources) +
    annotations(pod.metadata?.annotations)
  );
}

function containers(list: readonly Container[] | undefined): string {
  if (list === undefined) return '~';
  let shape = '[';
  for (const container of list)
    shape +=
      text(container.name) +
      text(container.restartPolicy) +
      requirements(container.resources);
  return `${shape}]`;
}

function statuses(list: readonly ContainerStatus[] | undefined): string {
  if (list === undefined) return '~';
  let shape = '[';
  for (const status of list)
    shape += text(status.name) + requirements(status.resources);
  return `${shape}]`;
}

function requirements(
  resources: ResourceRequirements | null | undefined,
): string {
  if (resources === undefined) return '~';
  if (resources === null) return 'n';
  return `{${resourceList(resources.requests)}${resourceList(resources.limits)}}`;
}

function resourceList(list: ResourceList | undefined): string {
  if (list === undefined) return '~';
  let shape = '(';
  for (const name in list) shape += text(name) + text(list[name]);
  return `${shape})`;
}

function annotations(list: Record<string, string> | undefined): string {
  if (list === undefined) return '~';
  let shape = '(';
  for (const name in list)
    if (
      name === PodAnnotation.vpaObservedContainers ||
      name.startsWith(PodAnnotation.vpaCpuStartupBoostPrefix)
    )
      shape += text(name) + text(list[name]);
  return `${shape})`;
}

/** `<length>:<text>`, or `~` when absent: never the start of another item's text. */
function text(value: string | undefined): string {
  return value === undefined ? '~' : `${value.length}:${value}`;
}
