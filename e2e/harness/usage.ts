import type { KubeClients } from './kube.ts';
import { POD_CPU_ANNOTATION, POD_MEMORY_ANNOTATION } from './load-split.ts';
import { mergePodAnnotations } from './pod-annotations.ts';
import { listPods } from './workloads.ts';

export interface SimulatedUsage {
  cpu: string;
  memory: string;
}

/**
 * Sets the CPU and memory every container of the pod reports from now on: kwok serves
 * it at its kubelet metrics endpoint and metrics-server picks it up at its next scrape.
 * A fixed usage per pod: for a workload whose pods should share a total (anything an HPA
 * scales), use startLoadDriver (load-driver.ts) instead.
 */
export async function setPodUsage(
  kube: KubeClients,
  namespace: string,
  pod: string,
  usage: SimulatedUsage,
): Promise<void> {
  await mergePodAnnotations(kube, namespace, pod, {
    [POD_CPU_ANNOTATION]: usage.cpu,
    [POD_MEMORY_ANNOTATION]: usage.memory,
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
