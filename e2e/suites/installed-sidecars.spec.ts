import { parseCpuMillicores } from '@tandem/vpa-api';
import { isInstalledPlatform } from '../harness/cluster-env.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { installedLogs } from '../harness/platform-apps.ts';
import { apiServerGet, describeResponse } from '../harness/raw-get.ts';
import {
  BURNER_IMAGE,
  createRealDeployment,
  describePod,
} from '../harness/real-pods.ts';
import { recommendationFor, vpaObjects } from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';

// Native sidecars (docs/decisions/0033) on kind's real kubelet, the platform installed
// with NativeSidecar on (e2e/kind/installed-platform). There the kubelet reports a
// sidecar's usage, which kwok does not (suites/native-sidecars.spec.ts): metrics-server
// serves it beside the app container's, the installed recommender (upstream's
// cluster_feeder.go with AEP-8905's AddOrUpdateContainer for sidecars) recommends the
// sidecar under its own name, and the adapter's pod metric counts it.
const describeInstalled = isInstalledPlatform() ? describe : describe.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('sidecars');
const vpas = vpaObjects(kube, () => currentNamespace());

/** The installed recommender runs upstream's default interval (1 min). */
const RECOMMENDER_CYCLE_MS = 60_000;

/** One pod's cpu_usage (of one container, or summed), in millicores, through the aggregator. */
async function cpuUsageMillicores(
  pod: string,
  container?: string,
): Promise<number> {
  const selector =
    container === undefined
      ? ''
      : `?metricLabelSelector=${encodeURIComponent(`container=${container}`)}`;
  const answer = await apiServerGet(
    kube.config,
    `/apis/custom.metrics.k8s.io/v1beta2/namespaces/${currentNamespace()}/pods/${pod}/cpu_usage${selector}`,
  );
  // A MetricValueList even for one named pod (custom-metrics-apiserver's answer).
  const value = (answer.body as { items?: { value?: string }[] } | undefined)
    ?.items?.[0]?.value;
  if (answer.status !== 200 || value === undefined)
    throw new Error(`cpu_usage of ${pod}: ${describeResponse(answer)}`);
  return parseCpuMillicores(value);
}

describeInstalled(
  'native sidecars on a real kubelet (installed platform)',
  () => {
    // Its time: creation (up to 2 min), three recommender cycles, and a minute for the metric.
    it('recommends a busy sidecar under its own name, from its own usage, and the adapter’s pod metric counts it', async () => {
      // The sidecar burns CPU up to its 100m limit; the app container sleeps.
      const [pod] = await createRealDeployment(
        kube,
        currentNamespace(),
        'mesh',
        1,
        {
          command: ['sleep', 'infinity'],
          resources: { requests: { cpu: '50m', memory: '32Mi' } },
        },
        {
          initContainers: [
            {
              name: 'proxy',
              image: BURNER_IMAGE,
              imagePullPolicy: 'Never',
              restartPolicy: 'Always',
              resources: {
                requests: { cpu: '50m', memory: '32Mi' },
                limits: { cpu: '100m', memory: '64Mi' },
              },
            },
          ],
        },
      );
      const name = pod?.metadata?.name ?? '';
      await vpas.createVpa('mesh', 'mesh');

      const { vpa } = await vpas.waitForRecommendation(
        'mesh',
        'recommendations for the app container and for the sidecar',
        {
          accept: (_, current) =>
            recommendationFor(current, 'proxy') !== undefined,
          timeoutMs: 3 * RECOMMENDER_CYCLE_MS,
          context: async () =>
            `${describePod(pod)}\nrecommender:\n${await installedLogs(kube, 'recommender', 15)}`,
        },
      );
      const targetCpu = (container: string) =>
        parseCpuMillicores(
          recommendationFor(vpa, container)?.target?.cpu ?? '0',
        );
      expect({
        containers: vpa.status?.recommendation?.containerRecommendations
          ?.map((entry) => entry.containerName)
          .sort(),
        sidecarAboveApp: targetCpu('proxy') > targetCpu('app'),
      }).toEqual({ containers: ['app', 'proxy'], sidecarAboveApp: true });

      // The sidecar's own value (container=proxy) is its busy loop, about its limit, and
      // the pod's value (no selector) sums it with the sleeping app container.
      const usage = await waitFor(
        'cpu_usage of the sidecar near its 100m limit, counted in the pod’s value',
        async () => {
          const sidecar = await cpuUsageMillicores(name, 'proxy');
          const whole = await cpuUsageMillicores(name);
          return sidecar >= 50 && whole >= sidecar
            ? { sidecar, whole }
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 2000 },
        async () => installedLogs(kube, 'metrics-adapter', 10),
      );
      expect(usage.sidecar).toBeLessThanOrEqual(120);
    }, 360_000);
  },
);
