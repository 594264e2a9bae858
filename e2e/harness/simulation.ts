import type { V1ContainerStatus } from '@kubernetes/client-node';
import type { KubeClients } from './kube.ts';
import { mergePodAnnotations } from './pod-annotations.ts';
import { waitFor } from './wait.ts';

/**
 * Makes kwok report that a container of the pod has been OOM-killed `times` times in
 * total (a kubelet would restart it each time): its status gets
 * `lastState.terminated.reason: OOMKilled` and `restartCount: times`. Uses the stage in
 * e2e/control-plane/kwok, keyed on the `tandem.dev/simulate-oom` annotation.
 */
export async function simulateOomKills(
  kube: KubeClients,
  namespace: string,
  pod: string,
  times: number,
  container?: string,
): Promise<V1ContainerStatus> {
  const current = await mergePodAnnotations(kube, namespace, pod, {
    'tandem.dev/simulate-oom': String(times),
    ...(container === undefined
      ? {}
      : { 'tandem.dev/simulate-oom-container': container }),
  });
  const name = container ?? current.spec?.containers[0]?.name;
  const statusOf = async () =>
    (
      await kube.core.readNamespacedPod({ namespace, name: pod })
    ).status?.containerStatuses?.find((status) => status.name === name);
  return waitFor(
    `container ${name} of ${namespace}/${pod} to show ${times} OOM kill(s)`,
    async () => {
      const status = await statusOf();
      return status?.restartCount === times &&
        status.lastState?.terminated?.reason === 'OOMKilled'
        ? status
        : undefined;
    },
    { timeoutMs: 30_000 },
    async () => JSON.stringify(await statusOf()),
  );
}
