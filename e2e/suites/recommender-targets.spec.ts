import { ApiextensionsV1Api } from '@kubernetes/client-node';
import {
  apiServerRequests,
  type RequestFilter,
} from '../harness/apiserver-requests.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import {
  applyCustomResourceDefinition,
  installTandemCrds,
} from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { scalableCrd } from '../harness/scalable-crd.ts';
import {
  startRecommender,
  type RecommenderProcess,
  TEST_INTERVAL_SECONDS,
} from '../harness/recommender-process.ts';
import { stopAllApps } from '../harness/app-process.ts';
import { waitFor } from '../harness/wait.ts';
import { condition, vpaObjects, type Vpa } from '../harness/vpa-objects.ts';
import {
  ON_FAKE_NODES,
  runDeployment,
  waitForRunningPods,
} from '../harness/workloads.ts';

// Target kinds beyond Deployment: a well-known controller read from its list+watch cache,
// and a custom resource read through its scale subresource.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const GROUP = 'targets.tandem-e2e.example.com';
const SCALABLES = scalableCrd(GROUP, {
  plural: 'scalables',
  singular: 'scalable',
  kind: 'Scalable',
});

const { kube, namespace: currentNamespace } = useTestNamespace('targets');
let namespace: string;
let recommender: RecommenderProcess;
const vpas = vpaObjects(kube, () => namespace);
const logTail = () => `recommender output tail:\n${recommender.tail(15)}`;

async function waitForCycles(count: number): Promise<void> {
  const target = recommender.cycleCount() + count;
  await waitFor(
    `${count} more recommender cycles`,
    async () => (recommender.cycleCount() >= target ? true : undefined),
    { timeoutMs: (count + 2) * TEST_INTERVAL_SECONDS * 1000 + 30_000 },
    async () => `${recommender.cycleCount()} cycles; ${logTail()}`,
  );
}

describeLocal('the recommender resolves targets of any scalable kind', () => {
  beforeAll(async () => {
    namespace = currentNamespace();
    await installTandemCrds(kube);
    await applyCustomResourceDefinition(kube, SCALABLES);
    recommender = await startRecommender({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: TEST_INTERVAL_SECONDS,
    });
  });
  afterAll(async () => {
    await stopAllApps();
    await kube.config
      .makeApiClient(ApiextensionsV1Api)
      .deleteCustomResourceDefinition({ name: `scalables.${GROUP}` });
  });

  it('recommends for a StatefulSet', async () => {
    const labels = { app: 'stateful' };
    await kube.apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name: 'stateful' },
        spec: {
          serviceName: 'stateful',
          replicas: 1,
          selector: { matchLabels: labels },
          template: {
            metadata: {
              labels,
              annotations: {
                'kwok.x-k8s.io/usage-cpu': '300m',
                'kwok.x-k8s.io/usage-memory': '300Mi',
              },
            },
            spec: {
              ...ON_FAKE_NODES,
              containers: [
                {
                  name: 'app',
                  image: 'registry.invalid/tandem-demo:1',
                  resources: { requests: { cpu: '200m', memory: '256Mi' } },
                },
              ],
            },
          },
        },
      },
    });
    await waitForRunningPods(kube, namespace, 'stateful', 1);
    await vpas.createVpa('stateful', 'stateful', {
      targetRef: {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        name: 'stateful',
      },
    });

    const { vpa } = await vpas.waitForRecommendation(
      'stateful',
      'a recommendation for the StatefulSet',
      { context: logTail },
    );
    expect(condition(vpa, 'ConfigUnsupported')).toBeUndefined();

    // The target comes from the StatefulSet cache: cycles go by without a GET of one. The
    // GET the test makes itself shows that the API server's counter does count them.
    const statefulSetGets: RequestFilter = {
      verb: 'GET',
      group: 'apps',
      resource: 'statefulsets',
      subresource: '',
    };
    const before = await apiServerRequests(kube, statefulSetGets);
    await waitForCycles(3);
    await kube.apps.readNamespacedStatefulSet({ namespace, name: 'stateful' });
    const after = await waitFor(
      'the API server to count the GET of the StatefulSet',
      async () => {
        const count = await apiServerRequests(kube, statefulSetGets);
        return count > before ? count : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(after - before).toBe(1);
  });

  it('recommends for a custom resource by the selector of its scale subresource', async () => {
    // The pods belong to a Deployment: only the scale's selector links them to the target.
    await runDeployment(kube, namespace, {
      name: 'scaled',
      replicas: 1,
      cpuRequest: '200m',
      memoryRequest: '256Mi',
      initialUsage: { cpu: '400m', memory: '200Mi' },
    });
    const target = {
      group: GROUP,
      version: 'v1',
      namespace,
      plural: 'scalables',
    };
    await kube.customObjects.createNamespacedCustomObject({
      ...target,
      body: {
        apiVersion: `${GROUP}/v1`,
        kind: 'Scalable',
        metadata: { name: 'custom' },
        spec: { replicas: 1 },
      },
    });
    await kube.customObjects.patchNamespacedCustomObjectStatus({
      ...target,
      name: 'custom',
      body: [
        {
          op: 'add',
          path: '/status',
          value: { replicas: 1, selector: 'app=scaled,!canary' },
        },
      ],
    });
    await vpas.createVpa('custom', 'custom', {
      targetRef: {
        apiVersion: `${GROUP}/v1`,
        kind: 'Scalable',
        name: 'custom',
      },
    });

    const { vpa } = await vpas.waitForRecommendation(
      'custom',
      'a recommendation for the custom resource',
      { context: logTail },
    );
    expect(condition(vpa, 'ConfigUnsupported')).toBeUndefined();

    // The scale stays fresh for 10–20 minutes (upstream's jittered cache): three 5 s cycles
    // read it no more.
    const scaleGets: RequestFilter = {
      verb: 'GET',
      group: GROUP,
      resource: 'scalables',
      subresource: 'scale',
    };
    const before = await apiServerRequests(kube, scaleGets);
    expect(before).toBeGreaterThan(0);
    await waitForCycles(3);
    expect((await apiServerRequests(kube, scaleGets)) - before).toBe(0);
  });

  it('recommends for a Deployment controlled by an object without /scale, as upstream walks the owner chain', async () => {
    // An operator's custom resource stands behind many Deployments; a ConfigMap is the
    // simplest owner that is neither a well-known controller nor scalable.
    const owner = await kube.core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'operator-owned' } },
    });
    await runDeployment(kube, namespace, {
      name: 'operated',
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest: '64Mi',
      initialUsage: { cpu: '200m', memory: '100Mi' },
    });
    await kube.apps.patchNamespacedDeployment({
      namespace,
      name: 'operated',
      body: [
        {
          op: 'add',
          path: '/metadata/ownerReferences',
          value: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'operator-owned',
              uid: owner.metadata?.uid,
              controller: true,
            },
          ],
        },
      ],
    });
    await vpas.createVpa('operated', 'operated');
    const { vpa } = await vpas.waitForRecommendation(
      'operated',
      'a recommendation for the operator-owned Deployment',
      { context: logTail },
    );
    expect(condition(vpa, 'ConfigUnsupported')).toBeUndefined();
  });

  it('marks a target kind without a scale subresource ConfigUnsupported, saying why', async () => {
    await vpas.createVpa('unscalable', 'settings', {
      targetRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings' },
    });
    let last: Vpa | undefined;
    const vpa = await waitFor(
      'VPA unscalable to get ConfigUnsupported True',
      async () => {
        last = await vpas.readVpa('unscalable');
        return condition(last, 'ConfigUnsupported')?.status === 'True'
          ? last
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
      async () => `status ${JSON.stringify(last?.status)}; ${logTail()}`,
    );
    expect(condition(vpa, 'ConfigUnsupported')?.message).toBe(
      'Cannot read targetRef. Reason: ConfigMap in v1 is neither a well-known controller nor has a scale subresource',
    );
  });
});
