import type { V1Container, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { PodAnnotation } from '@tandem/vpa-api';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { startUpdater } from '../harness/updater-process.ts';
import {
  appRecommendation,
  MANUAL_RECOMMENDER,
  vpaObjects,
} from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';
import { useRegisteredWebhook } from '../harness/webhook-process.ts';
import {
  cpuRequestOf,
  isRunningAndReady,
  listPods,
  ON_FAKE_NODES,
  runDeployment,
} from '../harness/workloads.ts';

// The webhook runs as a host process the API server reaches on 127.0.0.1.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('shared');
const vpas = vpaObjects(kube, () => currentNamespace());

/** What a platform team's neighbours run: declared by hand, never under Tandem. */
const BYSTANDER_CONTAINER: V1Container = {
  name: 'app',
  image: 'registry.invalid/tandem-demo:1',
  resources: {
    requests: { cpu: '100m', memory: '64Mi' },
    limits: { memory: '256Mi' },
  },
};
const bystanderSpec = (restartPolicy: 'Always' | 'Never'): V1PodSpec => ({
  ...ON_FAKE_NODES,
  restartPolicy,
  containers: [BYSTANDER_CONTAINER],
});

/** Every annotation upstream's VPA or Tandem writes on a pod. */
const VPA_ANNOTATIONS = new Set<string>([
  PodAnnotation.vpaUpdates,
  PodAnnotation.vpaObservedContainers,
  PodAnnotation.vpaInPlaceUpdated,
  PodAnnotation.originalResources,
]);
const vpaAnnotationsOf = (pod: V1Pod) =>
  Object.keys(pod.metadata?.annotations ?? {}).filter(
    (key) =>
      VPA_ANNOTATIONS.has(key) ||
      key.startsWith(PodAnnotation.vpaCpuStartupBoostPrefix),
  );

async function createBarePod(name: string): Promise<V1Pod> {
  return kube.core.createNamespacedPod({
    namespace: currentNamespace(),
    body: {
      metadata: { name, labels: { app: 'web' } },
      spec: bystanderSpec('Always'),
    },
  });
}

/** A ReplicaSet of its own whose pods carry the Deployment's `app=web` too. */
async function createSiblingReplicaSet(name: string): Promise<void> {
  const labels = { app: 'web', role: name };
  await kube.apps.createNamespacedReplicaSet({
    namespace: currentNamespace(),
    body: {
      metadata: { name },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: bystanderSpec('Always') },
      },
    },
  });
}

/** A Job whose pod carries `app=web` (kwok completes Job pods at once). */
async function createJob(name: string): Promise<void> {
  await kube.batch.createNamespacedJob({
    namespace: currentNamespace(),
    body: {
      metadata: { name },
      spec: {
        template: {
          metadata: { labels: { app: 'web' } },
          spec: bystanderSpec('Never'),
        },
      },
    },
  });
}

async function podsOwnedBy(kind: string, name: string): Promise<V1Pod[]> {
  const pods = await kube.core.listNamespacedPod({
    namespace: currentNamespace(),
  });
  return pods.items.filter((pod) =>
    pod.metadata?.ownerReferences?.some(
      (owner) => owner.kind === kind && owner.name === name,
    ),
  );
}

const describePod = (pod: V1Pod) =>
  `${pod.metadata?.name} uid=${pod.metadata?.uid?.slice(0, 8)} ${pod.status?.phase} resources=${JSON.stringify(pod.spec?.containers[0]?.resources)} vpa-annotations=[${vpaAnnotationsOf(pod).join(',')}]`;

describeLocal(
  'on a shared cluster, Tandem changes only the pods a VPA controls',
  () => {
    useRegisteredWebhook(kube);

    it("a bare pod, a sibling ReplicaSet's pod and a Job's pod carrying the target's labels keep what they declared, get no VPA annotation and are never evicted, while the Deployment's pods are updated", async () => {
      const namespace = currentNamespace();
      await runDeployment(kube, namespace, {
        name: 'web',
        replicas: 2,
        cpuRequest: '100m',
        memoryRequest: '64Mi',
      });
      // Before the VPA exists: pods the updater could evict.
      await createBarePod('debug-before');
      await createSiblingReplicaSet('sibling');
      // The recommendation is far from the Deployment's 100m: its pods must all be replaced.
      await vpas.createVpa('web', 'web', {
        ...MANUAL_RECOMMENDER,
        updatePolicy: { updateMode: 'Recreate' },
      });
      await vpas.writeRecommendation(
        'web',
        appRecommendation(['300m', '250m', '400m'], ['64Mi', '32Mi', '128Mi']),
      );
      // After it: pods the webhook could patch.
      await createBarePod('debug-after');
      await createJob('batch');

      const bystanders = async () => [
        ...(await Promise.all(
          ['debug-before', 'debug-after'].map((name) =>
            kube.core.readNamespacedPod({ namespace, name }),
          ),
        )),
        ...(await podsOwnedBy('ReplicaSet', 'sibling')),
        ...(await podsOwnedBy('Job', 'batch')),
      ];
      const before = await waitFor(
        'the bystander pods to be created and scheduled',
        async () => {
          const pods = await bystanders();
          return pods.length === 4 && pods.every((pod) => pod.spec?.nodeName)
            ? pods
            : undefined;
        },
        {},
        async () => (await bystanders()).map(describePod).join('\n'),
      );

      const updater = await startUpdater({
        kubeconfig: clusterKubeconfig(),
        intervalSeconds: 2,
        extraArgs: [`--vpa-object-namespace=${namespace}`],
      });
      await waitFor(
        "the Deployment's pods replaced with the recommended 300m",
        async () => {
          const pods = (await listPods(kube, namespace, 'web')).filter(
            (pod) => pod.metadata?.labels?.['pod-template-hash'] !== undefined,
          );
          return pods.length === 2 &&
            pods.every(isRunningAndReady) &&
            pods.every((pod) => cpuRequestOf(pod) === '300m')
            ? pods
            : undefined;
        },
        { timeoutMs: 90_000 },
        async () =>
          `pods: ${(await listPods(kube, namespace, 'web')).map(describePod).join('\n')}\nupdater:\n${updater.tail(15)}`,
      );
      // Two more full cycles with every pod in view: the bystanders had their chance to be hit.
      const cycles = updater.cycleCount();
      await waitFor('two more updater cycles', async () =>
        updater.cycleCount() >= cycles + 2 ? true : undefined,
      );

      const after = await bystanders();
      const view = (pods: V1Pod[]) =>
        pods.map((pod) => ({
          name: pod.metadata?.name,
          uid: pod.metadata?.uid,
          resources: pod.spec?.containers.map(
            (container) => container.resources,
          ),
          vpaAnnotations: vpaAnnotationsOf(pod),
        }));
      expect(view(after)).toEqual(view(before));
      for (const pod of after) {
        expect(pod.spec?.containers[0]?.resources).toEqual(
          BYSTANDER_CONTAINER.resources,
        );
        expect(vpaAnnotationsOf(pod)).toEqual([]);
      }
      const evictions = await kube.core.listNamespacedEvent({
        namespace,
        fieldSelector: 'reason=EvictedByVPA',
      });
      const evicted = evictions.items.map((event) => event.involvedObject.name);
      for (const pod of after)
        expect(evicted).not.toContain(pod.metadata?.name);
    });
  },
);
