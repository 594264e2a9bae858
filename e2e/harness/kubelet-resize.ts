import type { KubeClients } from './kube.ts';

/**
 * Plays the kubelet kwok does not play for in-place resizes: reports the pod's pending
 * resize Infeasible (condition `PodResizePending`, reason `Infeasible`), as a node without
 * the room for it would.
 */
export async function reportResizeInfeasible(
  kube: KubeClients,
  namespace: string,
  name: string,
): Promise<void> {
  await kube.core.patchNamespacedPodStatus({
    namespace,
    name,
    body: [
      {
        op: 'add',
        path: '/status/conditions/-',
        value: {
          type: 'PodResizePending',
          status: 'True',
          reason: 'Infeasible',
          message: 'Node didn\u2019t have enough capacity: cpu',
          lastTransitionTime: new Date().toISOString(),
        },
      },
    ],
  });
}
