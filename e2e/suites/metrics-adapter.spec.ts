import type {
  V1Container,
  V2HorizontalPodAutoscaler,
  V2MetricSpec,
} from '@kubernetes/client-node';
import { parseCpuMillicores } from '@tandem/vpa-api';
import {
  startMetricsAdapter,
  type MetricsAdapter,
} from '../harness/adapter-process.ts';
import { stopAllApps } from '../harness/app-process.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { startLoadDriver, type LoadDriver } from '../harness/load-driver.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { startRecommender } from '../harness/recommender-process.ts';
import { waitFor } from '../harness/wait.ts';
import { vpaObjects } from '../harness/vpa-objects.ts';
import {
  deleteWebhookConfiguration,
  startWebhook,
  webhookCertificates,
} from '../harness/webhook-process.ts';
import { listPods, restartDeployment } from '../harness/workloads.ts';

// The adapter, webhook and recommender run as host processes beside the local control plane;
// the HPAs are the real kube-controller-manager's (5 s sync period in this control plane).
const describeLocal = isLocalCluster() ? describe : describe.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('adapter');
const vpas = vpaObjects(kube, () => currentNamespace());
const drivers: LoadDriver[] = [];
let adapter: MetricsAdapter;

const container = (
  name: string,
  resources: V1Container['resources'],
): V1Container => ({ name, image: 'registry.invalid/tandem-e2e:1', resources });

async function createWorkload(
  name: string,
  replicas: number,
  containers: V1Container[],
): Promise<void> {
  const labels = { app: name };
  await kube.apps.createNamespacedDeployment({
    namespace: currentNamespace(),
    body: {
      metadata: { name, labels },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { nodeSelector: { type: 'kwok' }, containers },
        },
      },
    },
  });
}

async function createHpa(
  name: string,
  metric: V2MetricSpec,
  { minReplicas = 1, maxReplicas = 12 } = {},
): Promise<void> {
  await kube.autoscaling.createNamespacedHorizontalPodAutoscaler({
    namespace: currentNamespace(),
    body: {
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        minReplicas,
        maxReplicas,
        metrics: [metric],
      },
    },
  });
}

const tandemMetric = (
  name: string,
  averageValue: string,
  container?: string,
): V2MetricSpec => ({
  type: 'Pods',
  pods: {
    metric: {
      name,
      ...(container && { selector: { matchLabels: { container } } }),
    },
    target: { type: 'AverageValue', averageValue },
  },
});

const nativeCpu = (averageUtilization: number): V2MetricSpec => ({
  type: 'Resource',
  resource: {
    name: 'cpu',
    target: { type: 'Utilization', averageUtilization },
  },
});

async function readHpa(name: string): Promise<V2HorizontalPodAutoscaler> {
  return kube.autoscaling.readNamespacedHorizontalPodAutoscaler({
    namespace: currentNamespace(),
    name,
  });
}

async function describeHpa(name: string): Promise<string> {
  const hpa = await readHpa(name);
  const metric = hpa.status?.currentMetrics?.[0];
  const value =
    metric?.resource?.current.averageUtilization ??
    metric?.pods?.current.averageValue;
  const conditions = (hpa.status?.conditions ?? [])
    .map((c) => `${c.type}=${c.status}(${c.reason}: ${c.message})`)
    .join(' ');
  return `${name}: replicas ${hpa.status?.currentReplicas}→${hpa.status?.desiredReplicas}, metric ${value}; ${conditions}`;
}

async function replicasOf(name: string): Promise<number> {
  const deployment = await kube.apps.readNamespacedDeployment({
    namespace: currentNamespace(),
    name,
  });
  return deployment.spec?.replicas ?? 0;
}

function waitForReplicas(
  name: string,
  accept: (replicas: number) => boolean,
  description: string,
  timeoutMs = 180_000,
): Promise<number> {
  return waitFor(
    `${name} to reach ${description}`,
    async () => {
      const replicas = await replicasOf(name);
      return accept(replicas) ? replicas : undefined;
    },
    { timeoutMs, intervalMs: 1000 },
    async () =>
      `${await describeHpa(name)}; adapter output tail:\n${adapter.process.tail(10)}`,
  );
}

async function drive(
  name: string,
  cpuMillicores: number,
  shares?: Record<string, number>,
) {
  const driver = await startLoadDriver(
    kube,
    currentNamespace(),
    `app=${name}`,
    {
      cpuMillicores,
      ...(shares && { containerShares: shares }),
    },
  );
  drivers.push(driver);
  return driver;
}

describeLocal('the metrics adapter under the real HPA controller', () => {
  beforeAll(async () => {
    await installTandemCrds(kube);
    adapter = await startMetricsAdapter(kube, clusterKubeconfig());
  });

  afterAll(async () => {
    await Promise.all(drivers.map((driver) => driver.stop()));
    await adapter?.stop();
    await stopAllApps();
    await deleteWebhookConfiguration(kube);
  });

  it('keeps the HPA honest after the VPA lowers requests, where the native HPA over-scales (headline)', async () => {
    const webhook = await startWebhook({
      kubeconfig: clusterKubeconfig(),
      certificates: await webhookCertificates(),
      extraArgs: ['--ignored-vpa-object-namespaces=kube-system'],
    });
    await waitFor('the webhook to register', async () =>
      webhook.entries().some((entry) => entry.msg === 'webhook registered')
        ? true
        : undefined,
    );
    // 500m requested, 1000m of load in total, a 50 % target: the load calls for 4 replicas.
    const LOAD_CALLS_FOR = 4;
    const resources = {
      requests: { cpu: '500m', memory: '128Mi' },
      limits: { cpu: '1', memory: '256Mi' },
    };
    for (const name of ['native', 'tandem']) {
      await createWorkload(name, LOAD_CALLS_FOR, [container('app', resources)]);
      await vpas.createVpa(name, name, {
        updatePolicy: { updateMode: 'Recreate' },
      });
      await drive(name, 1000);
    }
    await createHpa('native', nativeCpu(50));
    await createHpa(
      'tandem',
      tandemMetric('cpu_utilization_of_original_request', '50'),
    );

    // The recommender watches both workloads and lowers their CPU target below 500m.
    const recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: 5,
    });
    for (const name of ['native', 'tandem'])
      await vpas.waitForRecommendation(
        name,
        'a CPU target well below the 500m request',
        {
          accept: (recommendation) =>
            parseCpuMillicores(recommendation.target?.cpu ?? '1') < 400,
          timeoutMs: 180_000,
          context: () => `recommender output tail:\n${recommender.tail(10)}`,
        },
      );

    // The updater would now recreate the pods; until it lands the test does, and the
    // webhook gives the new pods the recommended requests.
    for (const name of ['native', 'tandem'])
      await restartDeployment(kube, currentNamespace(), name);
    await waitFor(
      'every pod of both workloads to carry the recommended requests',
      async () => {
        for (const name of ['native', 'tandem']) {
          const pods = await listPods(kube, currentNamespace(), name);
          const lowered = pods.filter(
            (pod) =>
              parseCpuMillicores(
                pod.spec?.containers[0]?.resources?.requests?.['cpu'] ?? '0',
              ) < 400,
          );
          if (lowered.length === 0 || lowered.length !== pods.length)
            return undefined;
        }
        return true;
      },
      { timeoutMs: 120_000, intervalMs: 1000 },
      async () =>
        `${await describeHpa('native')}\n${await describeHpa('tandem')}`,
    );

    // The native HPA reads the same load against the lowered request and over-scales.
    await waitForReplicas(
      'native',
      (replicas) => replicas >= 1.5 * LOAD_CALLS_FOR,
      `at least ${1.5 * LOAD_CALLS_FOR} replicas`,
    );
    // Tandem's stays within one replica of what the load calls for, sync after sync.
    const seen: number[] = [];
    for (let sync = 0; sync < 6; sync += 1) {
      seen.push(await replicasOf('tandem'));
      await new Promise((resolve) => setTimeout(resolve, 5_000)); // one HPA sync period
    }
    expect({
      seen,
      state: await describeHpa('tandem'),
    }).toEqual({
      seen: seen.map((replicas) =>
        Math.abs(replicas - LOAD_CALLS_FOR) <= 1
          ? replicas
          : `${replicas} (off by more than one)`,
      ),
      state: expect.stringContaining('ValidMetricFound'),
    });
    await recommender.stop();
    await webhook.stop();
  });
});
