import { PodAnnotation, type Pod } from '@tandem/vpa-api';

const LIST_SEPARATOR = ', ';
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL_MAX_LENGTH = 63;

/**
 * The containers the admission controller saw when the pod was created (its
 * `vpaObservedContainers` annotation), or undefined when the annotation is absent or not
 * parseable; then every container counts. Containers added later (by another webhook, say)
 * were never sized by the VPA, so the updater leaves them out of its decisions.
 * An empty annotation is an empty set, as upstream parses it.
 */
export function observedContainers(pod: Pod): ReadonlySet<string> | undefined {
  const value =
    pod.metadata?.annotations?.[PodAnnotation.vpaObservedContainers];
  if (value === undefined) return undefined;
  if (value === '') return new Set();
  const names = value.split(LIST_SEPARATOR);
  return names.every(isContainerName) ? new Set(names) : undefined;
}

/** Whether the updater should look at the container, per `vpaObservedContainers`. */
export function isObserved(
  observed: ReadonlySet<string> | undefined,
  containerName: string,
): boolean {
  return observed === undefined || observed.has(containerName);
}

function isContainerName(name: string): boolean {
  return name.length <= DNS1123_LABEL_MAX_LENGTH && DNS1123_LABEL.test(name);
}
