import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { PodForMetrics } from '@tandem/custom-metrics';

type Resources = Record<string, string>;

const resourcesOf = (container: V1Container) => ({
  name: container.name,
  requests: { ...(container.resources?.requests as Resources | undefined) },
  limits: { ...(container.resources?.limits as Resources | undefined) },
});

/**
 * What the HPA counts as a pod with a usable sample: Running, Ready, not being deleted.
 * Others are left out of the answer, and the HPA treats them as missing.
 */
export function isReady(pod: V1Pod): boolean {
  return (
    pod.metadata?.deletionTimestamp === undefined &&
    pod.status?.phase === 'Running' &&
    pod.status.conditions?.some(
      (condition) => condition.type === 'Ready' && condition.status === 'True',
    ) === true
  );
}

/** The pod as the utilization maths read it, with its controller's template when known. */
export function podView(
  pod: V1Pod,
  templateContainers: V1Container[] | undefined,
): PodForMetrics {
  return {
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? '',
    labels: pod.metadata?.labels ?? {},
    annotations: pod.metadata?.annotations ?? {},
    ready: isReady(pod),
    containers: (pod.spec?.containers ?? []).map(resourcesOf),
    initContainers: (pod.spec?.initContainers ?? []).map((container) => ({
      ...resourcesOf(container),
      restartPolicy: container.restartPolicy,
    })),
    templateContainers: templateContainers?.map(resourcesOf),
  };
}
