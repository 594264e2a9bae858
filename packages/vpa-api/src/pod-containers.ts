import { parseResourceList, type QuantityMap } from './resource-list.js';
import type { Pod } from './types.js';

export interface CurrentResources {
  requests: QuantityMap;
  limits: QuantityMap;
}

/**
 * The requests and limits a container runs with now: those the kubelet reports in the
 * container status (in-place resize may have changed them), else those in the pod spec.
 */
export function currentContainerResources(
  pod: Pod,
  containerName: string,
): CurrentResources {
  const reported = pod.status?.containerStatuses?.find(
    (status) => status.name === containerName,
  )?.resources;
  const resources =
    reported ??
    pod.spec.containers.find((container) => container.name === containerName)
      ?.resources;
  return {
    requests: parseResourceList(resources?.requests),
    limits: parseResourceList(resources?.limits),
  };
}
