import { useTestNamespace } from '../harness/namespaces.ts';
import { simulateOomKills } from '../harness/simulation.ts';
import { waitFor } from '../harness/wait.ts';
import { runDeployment } from '../harness/workloads.ts';

const { kube, namespace: currentNamespace } = useTestNamespace('simulated');
let namespace: string;
beforeAll(() => {
  namespace = currentNamespace();
});

describe('what the recommender and updater react to, simulated by kwok', () => {
  it('OOM-kills a container on demand: lastState OOMKilled and the restart count goes up', async () => {
    const [pod] = await runDeployment(kube, namespace, {
      name: 'leaky',
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest: '64Mi',
    });
    const name = pod?.metadata?.name ?? '';

    const first = await simulateOomKills(kube, namespace, name, 1);
    expect(first.lastState?.terminated?.exitCode).toBe(137);
    expect(first.state?.running).toBeDefined();
    const again = await simulateOomKills(kube, namespace, name, 3);
    expect(again.restartCount).toBe(3);
  });

  it('applies an in-place resize: the container status follows the new requests (pods/resize)', async () => {
    const [pod] = await runDeployment(kube, namespace, {
      name: 'resizable',
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest: '64Mi',
    });
    const name = pod?.metadata?.name ?? '';
    await kube.core.patchNamespacedPodResize({
      namespace,
      name,
      body: [
        {
          op: 'replace',
          path: '/spec/containers/0/resources/requests/cpu',
          value: '250m',
        },
        {
          op: 'replace',
          path: '/spec/containers/0/resources/requests/memory',
          value: '96Mi',
        },
      ],
    });
    const status = await waitFor(
      'the container status to report the resized requests',
      async () => {
        const resources = (
          await kube.core.readNamespacedPod({ namespace, name })
        ).status?.containerStatuses?.[0]?.resources;
        return resources?.requests?.['cpu'] === '250m' &&
          resources.requests['memory'] === '96Mi'
          ? resources
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(status.requests).toEqual({ cpu: '250m', memory: '96Mi' });
  });
});
