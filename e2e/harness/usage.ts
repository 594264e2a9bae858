import type { KubeClients } from './kube.ts';
import { listPods } from './workloads.ts';

export interface SimulatedUsage {
  cpu: string;
  memory: string;
}

/**
 * Sets the CPU and memory every container of the pod reports from now on: kwok serves
 * it at its kubelet metrics endpoint and metrics-server picks it up at its next scrape.
 */
export async function setPodUsage(
  kube: KubeClients,
  namespace: string,
  pod: string,
  usage: SimulatedUsage,
): Promise<void> {
  const current = await kube.core.readNamespacedPod({ namespace, name: pod });
  const annotations = {
    ...current.metadata?.annotations,
    'kwok.x-k8s.io/usage-cpu': usage.cpu,
    'kwok.x-k8s.io/usage-memory': usage.memory,
  };
  // JSON Patch `add` on an existing member replaces it, and creates the map if missing.
  await kube.core.patchNamespacedPod({
    namespace,
    name: pod,
    body: [{ op: 'add', path: '/metadata/annotations', value: annotations }],
  });
}

/** Sets the usage of every live pod of the app. */
export async function setAppUsage(
  kube: KubeClients,
  namespace: string,
  app: string,
  usage: SimulatedUsage,
): Promise<void> {
  for (const pod of await listPods(kube, namespace, app)) {
    await setPodUsage(kube, namespace, pod.metadata?.name ?? '', usage);
  }
}
