import type { V1Pod } from '@kubernetes/client-node';
import { parseCpuMillicores, parseMemoryBytes } from '@tandem/vpa-api';
import {
  startLoadDriver,
  type LoadDriver,
  type PodUsage,
} from '../harness/load-driver.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { waitFor } from '../harness/wait.ts';
import {
  createDeploymentOfPods,
  ON_FAKE_NODES,
  runDeployment,
  waitForRunningPods,
} from '../harness/workloads.ts';

const { kube, namespace: currentNamespace } = useTestNamespace('load');
let namespace: string;
beforeAll(() => {
  namespace = currentNamespace();
});

let driver: LoadDriver | undefined;
afterEach(async () => {
  await driver?.stop();
  driver = undefined;
});

const MiB = 1024 * 1024;
/**
 * metrics-server's CPU is a rate over its last two scrapes (10 s apart here) of kwok's
 * integrated counter: allow scrape noise, and 2m on tiny values (the API rounds up to 1m).
 */
const CPU_TOLERANCE = 0.15;
const CPU_TOLERANCE_MIN_MILLICORES = 2;
/** Two scrapes after a change, plus a new pod's first samples, with room to spare. */
const METRICS_TIMEOUT_MS = 90_000;

type ContainerUsage = { cpuMillicores: number; memoryBytes?: number };

interface PodMetricsList {
  items: {
    metadata: { name: string };
    containers: { name: string; usage: { cpu: string; memory: string } }[];
  }[];
}

/** metrics.k8s.io's view of the app's pods: pod → container → usage. */
async function podMetrics(
  app: string,
): Promise<Record<string, Record<string, Required<ContainerUsage>>>> {
  const list = (await kube.customObjects.listNamespacedCustomObject({
    group: 'metrics.k8s.io',
    version: 'v1beta1',
    namespace,
    plural: 'pods',
    labelSelector: `app=${app}`,
  })) as PodMetricsList;
  return Object.fromEntries(
    list.items.map((item) => [
      item.metadata.name,
      Object.fromEntries(
        item.containers.map((container) => [
          container.name,
          {
            cpuMillicores: parseCpuMillicores(container.usage.cpu),
            memoryBytes: parseMemoryBytes(container.usage.memory),
          },
        ]),
      ),
    ]),
  );
}

function closeTo(actual: Required<ContainerUsage>, wanted: ContainerUsage) {
  const cpuSlack = Math.max(
    wanted.cpuMillicores * CPU_TOLERANCE,
    CPU_TOLERANCE_MIN_MILLICORES,
  );
  return (
    Math.abs(actual.cpuMillicores - wanted.cpuMillicores) <= cpuSlack &&
    (wanted.memoryBytes === undefined ||
      actual.memoryBytes === wanted.memoryBytes)
  );
}

/**
 * Waits until metrics.k8s.io reports, for each of `pods`, every container of `perPod`
 * at about that usage (memory, a gauge, exactly).
 */
async function waitForPodMetrics(
  app: string,
  pods: readonly V1Pod[],
  perPod: Record<string, ContainerUsage>,
) {
  const names = pods.map((pod) => pod.metadata?.name ?? '');
  let last = 'nothing yet';
  return waitFor(
    `metrics.k8s.io to report ${JSON.stringify(perPod)} for each of ${names.join(', ')}`,
    async () => {
      const metrics = await podMetrics(app);
      last = JSON.stringify(metrics);
      const converged = names.every((name) =>
        Object.entries(perPod).every(([container, wanted]) => {
          const actual = metrics[name]?.[container];
          return actual !== undefined && closeTo(actual, wanted);
        }),
      );
      return converged ? metrics : undefined;
    },
    { timeoutMs: METRICS_TIMEOUT_MS, intervalMs: 1000 },
    async () => last,
  );
}

function describeApplied(applied: ReadonlyMap<string, PodUsage>): string {
  return JSON.stringify(Object.fromEntries(applied)) || 'nothing';
}

/** Waits until the driver's last round gave exactly `count` pods `cpuMillicores` each. */
function waitForApplied(
  load: LoadDriver,
  count: number,
  cpuMillicores: number,
) {
  return waitFor(
    `the driver to give ${count} pod(s) ${cpuMillicores}m each`,
    async () => {
      const applied = load.lastApplied();
      const usages = [...applied.values()];
      return usages.length === count &&
        usages.every((usage) => usage.cpuMillicores === cpuMillicores)
        ? applied
        : undefined;
    },
    { timeoutMs: 30_000 },
    async () => describeApplied(load.lastApplied()),
  );
}

/** A Deployment whose pods run an app container and a sidecar (the usual mesh shape). */
async function runTwoContainerDeployment(
  name: string,
  replicas: number,
): Promise<V1Pod[]> {
  const requests = { cpu: '100m', memory: '64Mi' };
  await createDeploymentOfPods(kube, namespace, name, replicas, {
    ...ON_FAKE_NODES,
    containers: [
      {
        name: 'app',
        image: 'registry.invalid/tandem-demo:1',
        resources: { requests },
      },
      {
        name: 'sidecar',
        image: 'registry.invalid/tandem-sidecar:1',
        resources: { requests },
      },
    ],
  });
  return waitForRunningPods(kube, namespace, name, replicas);
}

async function podAnnotation(pod: string, key: string) {
  const current = await kube.core.readNamespacedPod({ namespace, name: pod });
  return current.metadata?.annotations?.[key];
}

describe('the load driver splits a total load over the pods of a workload', () => {
  it('gives each Ready pod an even share, and re-splits when the Deployment scales', async () => {
    const pods = await runDeployment(kube, namespace, {
      name: 'web',
      replicas: 2,
      cpuRequest: '500m',
      memoryRequest: '128Mi',
    });
    // A timer period longer than the test: after the scale-up, only the pod watch can
    // trigger the re-split.
    driver = await startLoadDriver(
      kube,
      namespace,
      'app=web',
      { cpuMillicores: 600 },
      { intervalMs: 600_000 },
    );
    expect([...driver.lastApplied().values()]).toEqual([
      { cpuMillicores: 300, memoryBytes: 64 * MiB },
      { cpuMillicores: 300, memoryBytes: 64 * MiB },
    ]);
    await waitForPodMetrics('web', pods, {
      app: { cpuMillicores: 300, memoryBytes: 64 * MiB },
    });

    await kube.apps.patchNamespacedDeployment({
      namespace,
      name: 'web',
      body: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
    });
    const scaled = await waitForRunningPods(kube, namespace, 'web', 3);
    await waitForApplied(driver, 3, 200);
    await waitForPodMetrics('web', scaled, { app: { cpuMillicores: 200 } });
  });

  it('splits each pod between its containers by share: a zero share idles at 1m / 1Mi', async () => {
    const pods = await runTwoContainerDeployment('duo', 2);
    driver = await startLoadDriver(kube, namespace, 'app=duo', {
      cpuMillicores: 400,
      memoryBytes: 256 * MiB,
      containerShares: { app: 1, sidecar: 0 },
    });
    await waitForPodMetrics('duo', pods, {
      app: { cpuMillicores: 200, memoryBytes: 128 * MiB },
      sidecar: { cpuMillicores: 1, memoryBytes: MiB },
    });
  });

  it('follows a time profile on its timer, and a new load from setLoad', async () => {
    const [pod] = await runDeployment(kube, namespace, {
      name: 'steps',
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest: '64Mi',
    });
    const name = pod?.metadata?.name ?? '';
    const load = await startLoadDriver(
      kube,
      namespace,
      'app=steps',
      { cpuMillicores: (elapsedMs) => (elapsedMs < 1000 ? 100 : 700) },
      { intervalMs: 250 },
    );
    driver = load;
    expect(load.lastApplied().get(name)?.cpuMillicores).toBe(100);
    const cpuAnnotation = () => podAnnotation(name, 'kwok.x-k8s.io/usage-cpu');
    await waitFor(
      `the profile's second step (700m) on ${name}`,
      async () => ((await cpuAnnotation()) === '700m' ? true : undefined),
      { timeoutMs: 10_000 },
      async () => `usage-cpu=${await cpuAnnotation()}`,
    );

    load.setLoad({ cpuMillicores: 50 });
    await waitFor(
      `the new load (50m) on ${name}`,
      async () => ((await cpuAnnotation()) === '50m' ? true : undefined),
      { timeoutMs: 10_000 },
      async () => `usage-cpu=${await cpuAnnotation()}`,
    );
    expect(load.lastApplied().get(name)?.cpuMillicores).toBe(50);
  });
});
