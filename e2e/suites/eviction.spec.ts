import { httpStatusOf } from '../harness/kube.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { waitFor } from '../harness/wait.ts';
import { runDeployment } from '../harness/workloads.ts';

const { kube, namespace: currentNamespace } = useTestNamespace('eviction');
let namespace: string;
beforeAll(() => {
  namespace = currentNamespace();
});

async function createBudget(
  name: string,
  app: string,
  minAvailable: number,
  healthy: number,
) {
  await kube.policy.createNamespacedPodDisruptionBudget({
    namespace,
    body: {
      metadata: { name },
      spec: { minAvailable, selector: { matchLabels: { app } } },
    },
  });
  // The disruption controller must have counted the pods before the API can judge an eviction.
  await waitFor(`the disruption controller to observe ${name}`, async () => {
    const status = (
      await kube.policy.readNamespacedPodDisruptionBudget({ namespace, name })
    ).status;
    return status?.currentHealthy === healthy && status.expectedPods === healthy
      ? status
      : undefined;
  });
}

async function evict(pod: string): Promise<number> {
  try {
    await kube.core.createNamespacedPodEviction({
      namespace,
      name: pod,
      body: {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: pod, namespace },
      },
    });
    return 201;
  } catch (error) {
    const status = httpStatusOf(error);
    if (status === undefined) throw error;
    return status;
  }
}

describe('the Eviction API honours PodDisruptionBudgets', () => {
  it('refuses an eviction the budget forbids (429) and allows one it permits', async () => {
    const guarded = await runDeployment(kube, namespace, {
      name: 'guarded',
      replicas: 2,
      cpuRequest: '50m',
      memoryRequest: '32Mi',
    });
    await createBudget('guarded', 'guarded', 2, 2);
    expect(await evict(guarded[0]?.metadata?.name ?? '')).toBe(429);

    const spare = await runDeployment(kube, namespace, {
      name: 'spare',
      replicas: 2,
      cpuRequest: '50m',
      memoryRequest: '32Mi',
    });
    await createBudget('spare', 'spare', 1, 2);
    expect(await evict(spare[0]?.metadata?.name ?? '')).toBe(201);
  });
});
