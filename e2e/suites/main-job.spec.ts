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
import { launchBrowser, screenshotPath } from '../harness/browser.ts';
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

      // The dashboard the demo prints, in a real browser.
      const dashboard = /dashboard: (http\S+)/.exec(output())?.[1] ?? '';
      expect(dashboard).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      await checkDashboard(
        dashboard,
        autoscaling,
        config.makeApiClient(CoreV1Api),
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

/** What the test reads of `/api/workloads`. */
interface WorkloadRow {
  namespace: string;
  name: string;
  hpa: { currentReplicas: number } | null;
  nativeEquivalentReplicas: number | null;
}

/**
 * The dashboard of `npm start`: both demo workloads listed; once the VPA has lowered the
 * requests, native runs more replicas than tandem and the dashboard's native-equivalent
 * figure for native is what the native HPA really runs (±1: one sync apart); native's page
 * draws its plots and lists the updater's evictions; an event message holding markup shows
 * as text. Screenshots go to e2e/artifacts/.
 */
async function checkDashboard(
  url: string,
  autoscaling: AutoscalingV2Api,
  core: CoreV1Api,
): Promise<void> {
  const namespace = 'tandem-demo';
  const rowsOf = async () =>
    (
      (await (await fetch(`${url}api/workloads`)).json()) as {
        workloads: WorkloadRow[];
      }
    ).workloads.filter((row) => row.namespace === namespace);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await waitFor(
      'the fleet page to list both demo workloads',
      async () => {
        const response = await page.goto(url);
        expect(response?.headers()['content-security-policy']).toContain(
          "script-src 'self'",
        );
        const rows = await page
          .locator('tr[data-workload]')
          .evaluateAll((found) =>
            found.map((row) => row.getAttribute('data-workload')),
          );
        return rows.includes(`${namespace}/native`) &&
          rows.includes(`${namespace}/tandem`)
          ? rows
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 2000 },
    );

    let last = '';
    const drift = await waitFor(
      "native to run more replicas than tandem, and the dashboard's native-equivalent figure for native to be the native HPA's replicas (±1)",
      async () => {
        const rows = await rowsOf();
        const native = rows.find((row) => row.name === 'native');
        const tandem = rows.find((row) => row.name === 'tandem');
        const running = (
          await autoscaling.readNamespacedHorizontalPodAutoscaler({
            namespace,
            name: 'native',
          })
        ).status?.currentReplicas;
        last = JSON.stringify({ native, tandem, nativeHpaRuns: running });
        if (
          native?.hpa == null ||
          tandem?.hpa == null ||
          native.nativeEquivalentReplicas === null ||
          running === undefined
        )
          return undefined;
        return native.hpa.currentReplicas > tandem.hpa.currentReplicas &&
          Math.abs(native.nativeEquivalentReplicas - running) <= 1
          ? { native, tandem }
          : undefined;
      },
      { timeoutMs: 300_000, intervalMs: 5000 },
      async () => last,
    );
    // The page shows what the API says: native's row above tandem's (most replicas saved
    // first) with more replicas.
    await page.goto(url);
    const replicasCell = async (name: string) =>
      page
        .locator(`tr[data-workload="${namespace}/${name}"] td.number`)
        .first()
        .textContent();
    expect(await replicasCell('native')).toContain(
      String(drift.native.hpa?.currentReplicas ?? ''),
    );
    await page.screenshot({
      path: screenshotPath('dashboard-fleet'),
      fullPage: true,
    });

    // An event whose message is markup, about native's VPA: the timeline shows it as text.
    const probe = `<script>window.tandemXss = 1</script><img src=x onerror="window.tandemXss = 2">`;
    const now = new Date();
    await core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { generateName: 'native.' },
        involvedObject: {
          apiVersion: 'autoscaling.k8s.io/v1',
          kind: 'VerticalPodAutoscaler',
          namespace,
          name: 'native',
        },
        type: 'Normal',
        reason: 'MarkupProbe',
        message: probe,
        source: { component: 'e2e' },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    });
    const workloadPage = `${url}workloads/${namespace}/Deployment/native`;
    const timeline = await waitFor(
      "native's timeline to show the updater's evictions and the probe event",
      async () => {
        await page.goto(workloadPage);
        const text = (await page.locator('table.timeline').textContent()) ?? '';
        return /EvictedPod|EvictedByVPA/.test(text) && text.includes(probe)
          ? text
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 2000 },
    );
    expect(timeline).toContain('tandem-updater');
    // A string, so the test compiles without the DOM's types.
    expect(await page.evaluate('typeof window.tandemXss')).toBe('undefined');
    expect(dialogs).toEqual([]);
    const plots = page.locator('figure.plot svg[role="img"]');
    // Replicas, then CPU and memory of the app container.
    expect(await plots.count()).toBeGreaterThanOrEqual(3);
    expect(
      await page.locator('figure.plot svg path[stroke-width="2"]').count(),
    ).toBeGreaterThan(0);
    expect(await page.locator('#recommended-yaml').textContent()).toMatch(
      /cpu: \d+m/,
    );
    await page.screenshot({
      path: screenshotPath('dashboard-native'),
      fullPage: true,
    });
  } finally {
    await browser.close();
  }
}
