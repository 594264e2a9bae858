import type { KubeClients } from './kube.ts';
import { mergePodAnnotations } from './pod-annotations.ts';
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
  await mergePodAnnotations(kube, namespace, pod, {
    'kwok.x-k8s.io/usage-cpu': usage.cpu,
    'kwok.x-k8s.io/usage-memory': usage.memory,
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
