import { useTestNamespace } from '../harness/namespaces.ts';
import { runDeployment } from '../harness/workloads.ts';

const { kube, namespace: currentNamespace } = useTestNamespace('workloads');
let namespace: string;
beforeAll(() => {
  namespace = currentNamespace();
});

describe('workloads on the cluster', () => {
  it('runs a Deployment: the scheduler places its pods on nodes and they become Running and Ready', async () => {
    const pods = await runDeployment(kube, namespace, {
      name: 'web',
      replicas: 2,
      cpuRequest: '100m',
      memoryRequest: '64Mi',
    });
    const nodes = new Set(
      (await kube.core.listNode()).items.map((node) => node.metadata?.name),
    );
    for (const pod of pods) expect(nodes).toContain(pod.spec?.nodeName);
  });
});
