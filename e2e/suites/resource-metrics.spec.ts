import { parseCpuMillicores, parseMemoryBytes } from '@tandem/vpa-api';
import { useTestNamespace } from '../harness/namespaces.ts';
import { setPodUsage } from '../harness/usage.ts';
import { waitFor } from '../harness/wait.ts';
import { runDeployment } from '../harness/workloads.ts';

const { kube, namespace: currentNamespace } = useTestNamespace('metrics');
let namespace: string;
beforeAll(() => {
  namespace = currentNamespace();
});

interface PodMetrics {
  containers: { name: string; usage: { cpu: string; memory: string } }[];
}

async function podUsage(
  pod: string,
): Promise<{ cpuMillicores: number; memoryBytes: number }> {
  const metrics = (await kube.customObjects.getNamespacedCustomObject({
    group: 'metrics.k8s.io',
    version: 'v1beta1',
    namespace,
    plural: 'pods',
    name: pod,
  })) as PodMetrics;
  const usage = metrics.containers.find(
    (container) => container.name === 'app',
  )?.usage;
  if (usage === undefined)
    throw new Error(
      `no metrics for container app in ${JSON.stringify(metrics)}`,
    );
  return {
    cpuMillicores: parseCpuMillicores(usage.cpu),
    memoryBytes: parseMemoryBytes(usage.memory),
  };
}

/** Waits until metrics.k8s.io reports the usage (CPU is a rate: allow ±5 %). */
function waitForUsage(pod: string, cpuMillicores: number, memoryBytes: number) {
  let last = 'nothing yet';
  return waitFor(
    `metrics.k8s.io to report ${cpuMillicores}m / ${memoryBytes} B for ${pod}`,
    async () => {
      const usage = await podUsage(pod);
      last = JSON.stringify(usage);
      const cpuClose =
        Math.abs(usage.cpuMillicores - cpuMillicores) <= cpuMillicores * 0.05;
      return cpuClose && usage.memoryBytes === memoryBytes ? usage : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 1000 },
    async () => last,
  );
}

describe('metrics.k8s.io serves the simulated usage', () => {
  it('reports what the pod was told to use, and follows a change', async () => {
    const [pod] = await runDeployment(kube, namespace, {
      name: 'worker',
      replicas: 1,
      cpuRequest: '500m',
      memoryRequest: '256Mi',
      initialUsage: { cpu: '300m', memory: '200Mi' },
    });
    const name = pod?.metadata?.name ?? '';
    await waitForUsage(name, 300, 200 * 1048576);

    await setPodUsage(kube, namespace, name, { cpu: '700m', memory: '300Mi' });
    await waitForUsage(name, 700, 300 * 1048576);
  });
});
