import { ApiextensionsV1Api, type V1Pod } from '@kubernetes/client-node';
import type { AppProcess } from '../harness/app-process.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import {
  applyCustomResourceDefinition,
  installTandemCrds,
} from '../harness/manifests.ts';
import { reportResizeInfeasible } from '../harness/kubelet-resize.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { scalableCrd } from '../harness/scalable-crd.ts';
import {
  startUpdater,
  type UpdaterProcess,
} from '../harness/updater-process.ts';
import { waitFor } from '../harness/wait.ts';
import {
  appRecommendation,
  MANUAL_RECOMMENDER,
  vpaObjects,
} from '../harness/vpa-objects.ts';
import {
  cpuRequestOf,
  listPods,
  ON_FAKE_NODES,
  runDeployment,
  waitForRunningPods,
} from '../harness/workloads.ts';

// The updater's replica groups beyond the well-known controllers, and its in-place rails,
// on the real control plane (kwok runs the pods).
const describeLocal = isLocalCluster() ? describe : describe.skip;

const GROUP = 'owners.tandem-e2e.example.com';
/** A CloneSet-like custom resource: it owns its pods directly and scales through `/scale`. */
const CLONE_SETS = scalableCrd(GROUP, {
  plural: 'clonesets',
  singular: 'cloneset',
  kind: 'CloneSet',
});

const { kube, namespace: currentNamespace } = useTestNamespace('rails');
const vpas = vpaObjects(kube, () => currentNamespace());
const perTest: AppProcess[] = [];
const INTERVAL_SECONDS = 2;

async function updater(extraArgs: string[] = []): Promise<UpdaterProcess> {
  const started = await startUpdater({
    kubeconfig: clusterKubeconfig(),
    intervalSeconds: INTERVAL_SECONDS,
    extraArgs: [
      `--vpa-object-namespace=${currentNamespace()}`,
      // No webhook runs here: what is asserted is what the updater asks of the API server.
      '--use-admission-controller-status=false',
      ...extraArgs,
    ],
  });
  perTest.push(started);
  return started;
}

function logged(process: AppProcess, message: string) {
  return process.entries().filter((entry) => entry.msg === message);
}

async function eventsAbout(name: string, reason: string) {
  const list = await kube.core.listNamespacedEvent({
    namespace: currentNamespace(),
    fieldSelector: `involvedObject.name=${name},reason=${reason}`,
  });
  return list.items;
}

async function waitForCycles(process: UpdaterProcess, count: number) {
  const target = process.cycleCount() + count;
  await waitFor(
    `${count} more updater cycles`,
    async () => (process.cycleCount() >= target ? true : undefined),
    { timeoutMs: (count + 5) * INTERVAL_SECONDS * 1000 },
    async () => process.tail(10),
  );
}

/** A pod of container `app` on kwok's nodes, labelled `app=<app>`. */
function podBody(
  name: string,
  app: string,
  resources: {
    requests: Record<string, string>;
    limits?: Record<string, string>;
  },
  metadata: Pick<
    NonNullable<V1Pod['metadata']>,
    'ownerReferences' | 'annotations'
  > = {},
): V1Pod {
  return {
    metadata: { name, labels: { app }, ...metadata },
    spec: {
      ...ON_FAKE_NODES,
      containers: [
        { name: 'app', image: 'registry.invalid/tandem-demo:1', resources },
      ],
    },
  };
}

describeLocal('the updater on owners beyond the well-known controllers', () => {
  beforeAll(async () => {
    await installTandemCrds(kube);
    await applyCustomResourceDefinition(kube, CLONE_SETS);
  });
  afterEach(async () => {
    await Promise.all(perTest.splice(0).map((process) => process.stop()));
  });
  afterAll(async () => {
    await kube.config
      .makeApiClient(ApiextensionsV1Api)
      .deleteCustomResourceDefinition({ name: `clonesets.${GROUP}` });
  });

  it("evicts a scalable custom owner's pods within its eviction tolerance, counted from its /scale", async () => {
    const namespace = currentNamespace();
    const target = {
      group: GROUP,
      version: 'v1',
      namespace,
      plural: 'clonesets',
    };
    const cloneSet = (await kube.customObjects.createNamespacedCustomObject({
      ...target,
      body: {
        apiVersion: `${GROUP}/v1`,
        kind: 'CloneSet',
        metadata: { name: 'clones' },
        spec: { replicas: 4 },
      },
    })) as { metadata: { uid: string } };
    await kube.customObjects.patchNamespacedCustomObjectStatus({
      ...target,
      name: 'clones',
      body: [
        {
          op: 'add',
          path: '/status',
          value: { replicas: 4, selector: 'app=clones' },
        },
      ],
    });
    // No controller plays the CloneSet: the test creates its pods, owned by it.
    const ownerReferences = [
      {
        apiVersion: `${GROUP}/v1`,
        kind: 'CloneSet',
        name: 'clones',
        uid: cloneSet.metadata.uid,
        controller: true,
      },
    ];
    for (let index = 0; index < 4; index += 1)
      await kube.core.createNamespacedPod({
        namespace,
        body: podBody(
          `clones-${index}`,
          'clones',
          { requests: { cpu: '100m', memory: '64Mi' } },
          { ownerReferences },
        ),
      });
    const original = await waitForRunningPods(kube, namespace, 'clones', 4);
    await vpas.createVpa('clones', 'clones', {
      ...MANUAL_RECOMMENDER,
      targetRef: {
        apiVersion: `${GROUP}/v1`,
        kind: 'CloneSet',
        name: 'clones',
      },
      updatePolicy: { updateMode: 'Recreate' },
    });
    await vpas.writeRecommendation(
      'clones',
      appRecommendation(['300m', '250m', '400m'], ['64Mi', '32Mi', '128Mi']),
    );

    const updaterProcess = await updater();
    await waitFor(
      'two of the four pods evicted',
      async () =>
        logged(updaterProcess, 'pod evicted').length >= 2 ? true : undefined,
      { timeoutMs: 60_000 },
      async () => updaterProcess.tail(15),
    );
    // Nothing replaces them: the group stays at 2 of 4 up, its tolerance (⌊4 × 0.5⌋) spent.
    await waitForCycles(updaterProcess, 3);
    expect(logged(updaterProcess, 'pod evicted')).toHaveLength(2);
    // Live pods only: an evicted one is gone or terminating.
    const live = new Set(
      (await listPods(kube, namespace, 'clones')).map(
        (pod) => pod.metadata?.uid,
      ),
    );
    const kept = original.filter((pod) => live.has(pod.metadata?.uid));
    expect(kept).toHaveLength(2);
    const waiting = await waitFor(
      'an UpdateWaiting event naming the CloneSet’s budget',
      async () => {
        const events = await eventsAbout(
          kept[0]?.metadata?.name ?? '',
          'UpdateWaiting',
        );
        return events.length > 0 ? events : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(waiting[0]?.message).toContain(
      'CloneSet clones must keep 2 of 4 pods up (eviction tolerance) and has 2 up',
    );
  });
});

describeLocal('the updater on single-replica workloads, in place only', () => {
  beforeAll(async () => {
    await installTandemCrds(kube);
  });
  afterEach(async () => {
    await Promise.all(perTest.splice(0).map((process) => process.stop()));
  });

  it('resizes the only pod of an opted-in VPA in place and never evicts it, even when its resize is infeasible', async () => {
    const namespace = currentNamespace();
    const [only] = (await runDeployment(kube, namespace, {
      name: 'single',
      replicas: 1,
      cpuRequest: '100m',
      memoryRequest: '64Mi',
    })) as [V1Pod];
    await vpas.createVpa(
      'single',
      'single',
      {
        ...MANUAL_RECOMMENDER,
        updatePolicy: { updateMode: 'InPlaceOrRecreate' },
      },
      { 'tandem.dev/in-place-below-min-replicas': 'true' },
    );
    await vpas.writeRecommendation(
      'single',
      appRecommendation(['300m', '250m', '400m'], ['64Mi', '32Mi', '128Mi']),
    );
    const updaterProcess = await updater(['--in-place-below-min-replicas']);
    const sameUid = (pod: V1Pod) => pod.metadata?.uid === only.metadata?.uid;

    // kwok plays no kubelet for resizes: the resize subresource's patch is what shows.
    await waitFor(
      'the only pod resized in place to 300m, same UID',
      async () => {
        const [pod, ...more] = await listPods(kube, namespace, 'single');
        return pod !== undefined &&
          more.length === 0 &&
          sameUid(pod) &&
          cpuRequestOf(pod) === '300m'
          ? pod
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
      async () => updaterProcess.tail(15),
    );

    // The kubelet (played by the test) finds the next resize Infeasible: InPlaceOrRecreate
    // would evict, but the group is below minReplicas and opted in to in place only.
    await reportResizeInfeasible(kube, namespace, only.metadata?.name ?? '');
    await vpas.writeRecommendation(
      'single',
      appRecommendation(['600m', '500m', '800m'], ['64Mi', '32Mi', '128Mi']),
    );
    const told = await waitFor(
      'an UpdateWaiting event: the pod is only resized in place',
      async () => {
        const events = await eventsAbout(
          only.metadata?.name ?? '',
          'UpdateWaiting',
        );
        return events.find((event) =>
          event.message?.includes('it is only resized in place'),
        );
      },
      { timeoutMs: 30_000 },
      async () => updaterProcess.tail(15),
    );
    expect(told.message).toContain(
      'has 1 live pods, fewer than minReplicas 2: it is only resized in place',
    );
    await waitForCycles(updaterProcess, 2);
    expect(logged(updaterProcess, 'pod evicted')).toEqual([]);
    const [still] = await listPods(kube, namespace, 'single');
    expect(still && sameUid(still)).toBe(true);
  });
});

describeLocal(
  'the updater never shrinks a memory limit in place under the working set',
  () => {
    beforeAll(async () => {
      await installTandemCrds(kube);
    });
    afterEach(async () => {
      await Promise.all(perTest.splice(0).map((process) => process.stop()));
    });

    it('keeps the memory limit of a pod using 400Mi when the recommendation would set 128Mi, applies the rest and says why', async () => {
      const namespace = currentNamespace();
      const pods = await runDeployment(kube, namespace, {
        name: 'hungry',
        replicas: 2,
        cpuRequest: '100m',
        memoryRequest: '512Mi',
        memoryLimit: '512Mi',
        initialUsage: { cpu: '100m', memory: '400Mi' },
      });
      // metrics-server serves kwok's usage at its next scrape: the rail reads it from there.
      await waitFor(
        'metrics.k8s.io to serve both pods’ working sets',
        async () => {
          const list = (await kube.customObjects.listNamespacedCustomObject({
            group: 'metrics.k8s.io',
            version: 'v1beta1',
            namespace,
            plural: 'pods',
          })) as { items: { metadata: { name: string } }[] };
          // The namespace holds the other tests' pods too.
          const hungry = list.items.filter((item) =>
            item.metadata.name.startsWith('hungry-'),
          );
          return hungry.length === 2 ? hungry : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 2000 },
      );
      await vpas.createVpa('hungry', 'hungry', {
        ...MANUAL_RECOMMENDER,
        updatePolicy: { updateMode: 'InPlaceOrRecreate' },
      });
      await vpas.writeRecommendation(
        'hungry',
        appRecommendation(
          ['300m', '250m', '400m'],
          ['128Mi', '100Mi', '200Mi'],
        ),
      );
      const updaterProcess = await updater();
      const uids = new Set(pods.map((pod) => pod.metadata?.uid));

      const resized = await waitFor(
        'both pods resized in place: cpu 300m and memory request 128Mi, memory limit kept at 512Mi',
        async () => {
          const current = await listPods(kube, namespace, 'hungry');
          return current.length === 2 &&
            current.every(
              (pod) =>
                uids.has(pod.metadata?.uid) &&
                cpuRequestOf(pod) === '300m' &&
                pod.spec?.containers[0]?.resources?.requests?.['memory'] ===
                  '128Mi',
            )
            ? current
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
        async () => updaterProcess.tail(15),
      );
      expect(
        resized.map((pod) => pod.spec?.containers[0]?.resources?.limits),
      ).toEqual([{ memory: '512Mi' }, { memory: '512Mi' }]);
      const told = await waitFor(
        'an InPlaceMemoryLimitKept event with the numbers',
        async () => {
          const [event] = await eventsAbout(
            resized[0]?.metadata?.name ?? '',
            'InPlaceMemoryLimitKept',
          );
          return event;
        },
        { timeoutMs: 15_000 },
      );
      expect(told.message).toContain(
        'memory limit of container app kept at 512Mi instead of 128Mi: below its working set 400Mi plus headroom (at least 460Mi); the rest of the resize is applied',
      );
      expect(logged(updaterProcess, 'pod evicted')).toEqual([]);
    });
  },
);
