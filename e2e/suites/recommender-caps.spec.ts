import type { CoreV1Event } from '@kubernetes/client-node';
import { parseCpuMillicores, parseMemoryBytes } from '@tandem/vpa-api';
import { stopAllApps } from '../harness/app-process.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { httpGet } from '../harness/http.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  startRecommender,
  type RecommenderProcess,
} from '../harness/recommender-process.ts';
import { waitFor } from '../harness/wait.ts';
import {
  type ContainerRecommendation,
  vpaObjects,
} from '../harness/vpa-objects.ts';
import { runDeployment } from '../harness/workloads.ts';

// The recommender's rails (ADR 0032): a recommendation scaled to the largest node with
// --cap-recommendation-at-largest-node, and an OOM kill at maxAllowed counted and reported
// on the VPA, its bump-up capped with --cap-oom-bump-up-at-max-allowed.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const INTERVAL_SECONDS = 5;
const MIB = 2 ** 20;

const { kube, namespace: currentNamespace } = useTestNamespace('caps');
let namespace: string;
let recommender: RecommenderProcess;
const vpas = vpaObjects(kube, () => namespace);
const logTail = () => `recommender output tail:\n${recommender.tail(15)}`;

function waitForRecommendation(
  name: string,
  description: string,
  accept: (recommendation: ContainerRecommendation) => boolean,
) {
  return vpas.waitForRecommendation(name, description, {
    accept,
    context: logTail,
  });
}

/** The event the kubelet's eviction manager writes when it evicts `podName` for memory. */
async function evictForMemory(podName: string, usage: string): Promise<void> {
  await kube.core.createNamespacedEvent({
    namespace,
    body: {
      metadata: {
        generateName: `${podName}.`,
        annotations: {
          offending_containers: 'app',
          offending_containers_usage: usage,
          starved_resource: 'memory',
        },
      },
      involvedObject: { kind: 'Pod', namespace, name: podName },
      reason: 'Evicted',
      message: 'The node was low on resource: memory.',
      type: 'Warning',
    },
  });
}

async function oomAtMaxAllowedEvents(vpa: string): Promise<CoreV1Event[]> {
  return (
    await kube.core.listNamespacedEvent({
      namespace,
      fieldSelector: `involvedObject.kind=VerticalPodAutoscaler,involvedObject.name=${vpa},reason=OOMAtMaxAllowed`,
    })
  ).items;
}

/** The counter's value for `vpa`'s container `app` (undefined: no series yet). */
async function oomAtMaxAllowedCount(vpa: string): Promise<number | undefined> {
  const { body } = await httpGet(`${recommender.url}/metrics`);
  const line = body
    .split('\n')
    .find((text) =>
      text.startsWith(
        `tandem_recommender_oom_at_max_allowed_total{namespace="${namespace}",vpa="${vpa}",container="app"} `,
      ),
    );
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describeLocal('the recommender caps (largest node, OOMs at maxAllowed)', () => {
  beforeAll(async () => {
    namespace = currentNamespace();
    await installTandemCrds(kube);
    recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: INTERVAL_SECONDS,
      extraArgs: [
        '--cap-recommendation-at-largest-node',
        '--cap-oom-bump-up-at-max-allowed',
      ],
    });
  });
  afterAll(() => stopAllApps());

  it('scales a recommendation no node could hold down to the largest node', async () => {
    const nodes = (await kube.core.listNode()).items.filter(
      (node) => node.spec?.unschedulable !== true,
    );
    const largest = (
      resource: 'cpu' | 'memory',
      parse: (text: string) => number,
    ) =>
      Math.max(
        ...nodes.map((node) =>
          parse(node.status?.allocatable?.[resource] ?? '0'),
        ),
      );
    const cpu = largest('cpu', parseCpuMillicores);
    const memory = largest('memory', parseMemoryBytes);
    expect(nodes.length).toBeGreaterThan(0);
    await runDeployment(kube, namespace, {
      name: 'huge',
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest: '128Mi',
      initialUsage: { cpu: '100m', memory: '100Mi' },
    });
    // minAllowed past every node: the policy alone would recommend it.
    await vpas.createVpa('huge', 'huge', {
      resourcePolicy: {
        containerPolicies: [
          {
            containerName: 'app',
            minAllowed: {
              cpu: `${(cpu / 1000) * 10}`,
              memory: `${memory * 10}`,
            },
          },
        ],
      },
    });
    const { recommendation } = await waitForRecommendation(
      'huge',
      `a target at the largest node (${cpu}m, ${memory} B)`,
      (candidate) => candidate.target?.cpu !== undefined,
    );
    expect(parseCpuMillicores(recommendation.target?.cpu ?? '')).toBe(cpu);
    expect(parseMemoryBytes(recommendation.target?.memory ?? '')).toBe(memory);
    expect(parseCpuMillicores(recommendation.upperBound?.cpu ?? '')).toBe(cpu);
    // What the workload uses, untouched by either cap.
    expect(
      parseCpuMillicores(recommendation.uncappedTarget?.cpu ?? ''),
    ).toBeLessThan(1000);
  });

  it('counts every OOM kill at maxAllowed, reports it once, and caps its bump-up', async () => {
    const [pod] = await runDeployment(kube, namespace, {
      name: 'capped',
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest: '300Mi',
      initialUsage: { cpu: '100m', memory: '280Mi' },
    });
    const podName = pod?.metadata?.name ?? '';
    await vpas.createVpa('capped', 'capped', {
      resourcePolicy: {
        containerPolicies: [
          { containerName: 'app', maxAllowed: { memory: '300Mi' } },
        ],
      },
    });
    await waitForRecommendation(
      'capped',
      'the memory target at its 300Mi maxAllowed',
      (candidate) =>
        parseMemoryBytes(candidate.target?.memory ?? '0') === 300 * MIB,
    );

    await evictForMemory(podName, '300Mi');
    const [event] = await waitFor(
      'an OOMAtMaxAllowed Warning event on VPA capped',
      async () => {
        const events = await oomAtMaxAllowedEvents('capped');
        return events.length > 0 ? events : undefined;
      },
      { timeoutMs: 60_000 },
      async () => logTail(),
    );
    expect(event?.type).toBe('Warning');
    expect(event?.message).toBe(
      `Container app of pod ${podName} was OOM-killed with a memory request of 300Mi; its memory target 300Mi is already at maxAllowed 300Mi, so the recommender cannot raise it: raise maxAllowed memory (or the --container-recommendation-max-allowed-memory cap) or lower the container's memory use`,
    );
    expect(await oomAtMaxAllowedCount('capped')).toBe(1);

    // A second kill minutes later in a crash loop: counted, not reported again.
    await evictForMemory(podName, '300Mi');
    await waitFor(
      'the second OOM at maxAllowed to be counted',
      async () =>
        (await oomAtMaxAllowedCount('capped')) === 2 ? true : undefined,
      { timeoutMs: 60_000 },
      async () => logTail(),
    );
    const events = await oomAtMaxAllowedEvents('capped');
    expect(events).toHaveLength(1);
    expect(events[0]?.count ?? 1).toBe(1);
    // The bump-up stopped at the cap: upstream's would have filed 400Mi (300Mi + 100Mi).
    const vpa = await vpas.readVpa('capped');
    const uncapped =
      vpa.status?.recommendation?.containerRecommendations?.[0]?.uncappedTarget
        ?.memory ?? '0';
    expect(parseMemoryBytes(uncapped)).toBeLessThan(400 * MIB);
  });
});
