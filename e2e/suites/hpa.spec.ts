import { useTestNamespace } from '../harness/namespaces.ts';
import { setAppUsage } from '../harness/usage.ts';
import { waitFor } from '../harness/wait.ts';
import { runDeployment, waitForRunningPods } from '../harness/workloads.ts';

const { kube, namespace: currentNamespace } = useTestNamespace('hpa');
let namespace: string;
beforeAll(() => {
  namespace = currentNamespace();
});

async function hpaState(): Promise<string> {
  const hpa = await kube.autoscaling.readNamespacedHorizontalPodAutoscaler({
    namespace,
    name: 'api',
  });
  const conditions = (hpa.status?.conditions ?? [])
    .map((c) => `${c.type}=${c.status}(${c.reason})`)
    .join(' ');
  const metric =
    hpa.status?.currentMetrics?.[0]?.resource?.current.averageUtilization;
  return `current=${hpa.status?.currentReplicas} desired=${hpa.status?.desiredReplicas} utilization=${metric}% ${conditions}`;
}

function waitForReplicas(replicas: number) {
  return waitFor(
    `the HPA to settle the Deployment at ${replicas} replica(s)`,
    async () => {
      const deployment = await kube.apps.readNamespacedDeployment({
        namespace,
        name: 'api',
      });
      return deployment.spec?.replicas === replicas ? deployment : undefined;
    },
    { timeoutMs: 150_000, intervalMs: 1000 },
    hpaState,
  );
}

describe('the real HPA controller (kube-controller-manager) on simulated usage', () => {
  it('scales up when CPU utilization exceeds the target, and back down when it falls', async () => {
    // 100m requested, 200m used: 200 % of the request against a 50 % target → 4 replicas (the max).
    await runDeployment(kube, namespace, {
      name: 'api',
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest: '64Mi',
      initialUsage: { cpu: '200m', memory: '50Mi' },
    });
    await kube.autoscaling.createNamespacedHorizontalPodAutoscaler({
      namespace,
      body: {
        metadata: { name: 'api' },
        spec: {
          scaleTargetRef: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'api',
          },
          minReplicas: 1,
          maxReplicas: 4,
          metrics: [
            {
              type: 'Resource',
              resource: {
                name: 'cpu',
                target: { type: 'Utilization', averageUtilization: 50 },
              },
            },
          ],
        },
      },
    });
    await waitForReplicas(4);
    await waitForRunningPods(kube, namespace, 'api', 4);

    // 10m used on 100m: 10 % against 50 % → the HPA scales in to the minimum.
    await setAppUsage(kube, namespace, 'api', { cpu: '10m', memory: '50Mi' });
    await waitForReplicas(1);
  });
});
