import type { V1Pod } from '@kubernetes/client-node';
import type { KubeClients } from './kube.ts';

/**
 * Adds or overwrites annotations of a pod, keeping the others (kwok's simulation stages
 * read them), and returns the pod as it was read. JSON Patch `add` on an existing member
 * replaces it and creates the map when the pod has none.
 */
export async function mergePodAnnotations(
  kube: KubeClients,
  namespace: string,
  pod: string,
  annotations: Record<string, string>,
): Promise<V1Pod> {
  const current = await kube.core.readNamespacedPod({ namespace, name: pod });
  await kube.core.patchNamespacedPod({
    namespace,
    name: pod,
    body: [
      {
        op: 'add',
        path: '/metadata/annotations',
        value: { ...current.metadata?.annotations, ...annotations },
      },
    ],
  });
  return current;
}
