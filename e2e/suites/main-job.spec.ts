import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  AppsV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
} from '@kubernetes/client-node';
import { isLocalCluster } from '../harness/cluster-env.ts';
import { waitFor } from '../harness/wait.ts';

const demo = resolve(import.meta.dirname, '..', 'demo', 'main.ts');
const describeLocal = isLocalCluster() ? describe : describe.skip;

/** Collects a child's stdout, and its stderr for the failure message. */
function captureOutput(child: ChildProcess): {
  stdout: () => string;
  stderr: () => string;
} {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { stdout: () => stdout, stderr: () => stderr };
}

describeLocal('npm start (the main job)', () => {
  it('brings up its own control plane with the demo workload, and tears everything down on Ctrl-C', async () => {
    // Its own process group: if the test fails, the demo and every app it started go
    // together, instead of leaving the apps orphaned.
    const child = spawn(process.execPath, [demo], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const { stdout: output, stderr } = captureOutput(child);
    const exited = new Promise<number | null>((resolveExit) =>
      child.on('exit', resolveExit),
    );
    try {
      await waitFor(
        'the demo to report ready',
        async () => (output().includes('demo ready\n') ? true : undefined),
        // Its own control plane comes first: 30 s on a quiet machine, 90 s seen on a
        // loaded one.
        { timeoutMs: 240_000 },
        async () =>
          `stdout: ${output().slice(-300)} stderr: ${stderr().slice(-500)}`,
      );

      const kubeconfig = /export KUBECONFIG=(\S+)/.exec(output())?.[1];
      expect(kubeconfig).toBeDefined();
      const config = new KubeConfig();
      config.loadFromFile(kubeconfig ?? '');
      const apps = config.makeApiClient(AppsV1Api);
      const autoscaling = config.makeApiClient(AutoscalingV2Api);
      await waitFor('the demo Deployment to have ready replicas', async () => {
        const deployment = await apps.readNamespacedDeployment({
          namespace: 'tandem-demo',
          name: 'tandem',
        });
        return (deployment.status?.readyReplicas ?? 0) >= 1
          ? deployment
          : undefined;
      });
      const hpa = await autoscaling.readNamespacedHorizontalPodAutoscaler({
        namespace: 'tandem-demo',
        name: 'tandem',
      });
      expect(hpa.spec.scaleTargetRef.name).toBe('tandem');
      const customObjects = config.makeApiClient(CustomObjectsApi);
      const vpa = (await customObjects.getNamespacedCustomObject({
        group: 'autoscaling.k8s.io',
        version: 'v1',
        namespace: 'tandem-demo',
        plural: 'verticalpodautoscalers',
        name: 'tandem',
      })) as { spec: { targetRef: { name: string } } };
      expect(vpa.spec.targetRef.name).toBe('tandem');
      // The main job's recommender writes a recommendation for the demo's VPA.
      await waitFor(
        'the demo VPA to get a recommendation from the recommender',
        async () => {
          const status = (
            (await customObjects.getNamespacedCustomObject({
              group: 'autoscaling.k8s.io',
              version: 'v1',
              namespace: 'tandem-demo',
              plural: 'verticalpodautoscalers',
              name: 'tandem',
            })) as {
              status?: {
                recommendation?: { containerRecommendations?: unknown[] };
              };
            }
          ).status;
          return (status?.recommendation?.containerRecommendations?.length ??
            0) > 0
            ? status
            : undefined;
        },
        { timeoutMs: 150_000, intervalMs: 1000 },
        async () => stderr().slice(-500),
      );

      // The main job's updater and admission webhook: once the updater has evicted a pod, its
      // replacement carries the recommended requests and what the Deployment declared.
      const updatedPod = await waitFor(
        'the demo pods to come up through the webhook with the recommendation',
        async () => {
          const pods = await config.makeApiClient(CoreV1Api).listNamespacedPod({
            namespace: 'tandem-demo',
            labelSelector: 'app=tandem',
          });
          const updated = pods.items.filter(
            (pod) =>
              pod.metadata?.deletionTimestamp === undefined &&
              pod.metadata?.annotations?.['vpaUpdates'] !== undefined &&
              pod.metadata.annotations['tandem.dev/original-resources'] !==
                undefined,
          );
          return updated.length > 0 ? updated[0] : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 1000 },
        async () =>
          `stdout: ${output().slice(-400)} stderr: ${stderr().slice(-400)}`,
      );
      expect(
        JSON.parse(
          updatedPod.metadata?.annotations?.['tandem.dev/original-resources'] ??
            '{}',
        ),
      ).toEqual({
        app: {
          requests: { cpu: '400m', memory: '256Mi' },
          limits: { cpu: '800m', memory: '512Mi' },
        },
      });

      // The metrics adapter answers the tandem HPA through the aggregation layer.
      await waitFor(
        'the tandem HPA to read cpu_utilization_of_original_request from the adapter',
        async () => {
          const status = (
            await autoscaling.readNamespacedHorizontalPodAutoscaler({
              namespace: 'tandem-demo',
              name: 'tandem',
            })
          ).status;
          return status?.conditions?.some(
            (condition) =>
              condition.type === 'ScalingActive' &&
              condition.reason === 'ValidMetricFound',
          )
            ? status
            : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 1000 },
        async () => stderr().slice(-500),
      );

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output()).toContain('stopped; nothing left running.');
      expect(existsSync(dirname(kubeconfig ?? ''))).toBe(false);
    } finally {
      if (child.exitCode === null && child.pid !== undefined)
        process.kill(-child.pid, 'SIGKILL');
    }
  }, 420_000);
});
