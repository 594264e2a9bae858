import type { V1Container, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { PodAnnotation } from '@tandem/vpa-api';
import { stopAllApps, type AppProcess } from '../harness/app-process.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { startUpdater } from '../harness/updater-process.ts';
import {
  MANUAL_RECOMMENDER,
  vpaObjects,
  type ContainerRecommendation,
} from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';
import {
  deleteWebhookConfiguration,
  startWebhook,
  waitForRegistration,
  webhookCertificates,
} from '../harness/webhook-process.ts';
import {
  createDeploymentOfPods,
  listPods,
  ON_FAKE_NODES,
  waitForRunningPods,
} from '../harness/workloads.ts';

// Native sidecars (init containers with restartPolicy Always) under a VPA, with
// --feature-gates=NativeSidecar=true (AEP-8905, docs/decisions/0033), on the real control
// plane. kwok runs the pods but reports usage for spec.containers only (its Metric's
// container dimension walks pod.Spec.Containers), so metrics.k8s.io never holds a sidecar's
// usage here: the recommender's and the adapter's sidecar sums are unit-tested instead.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const GATE = '--feature-gates=NativeSidecar=true';
const { kube, namespace: currentNamespace } = useTestNamespace('sidecars');
const vpas = vpaObjects(kube, () => currentNamespace());

const image = 'registry.invalid/tandem-e2e:1';
const container = (
  name: string,
  requests: Record<string, string>,
  limits?: Record<string, string>,
): V1Container => ({
  name,
  image,
  resources: { requests, ...(limits && { limits }) },
});

/** App `app`, plain init container `migrate` at index 0, native sidecar `proxy` at index 1. */
const MESH_POD: V1PodSpec = {
  ...ON_FAKE_NODES,
  initContainers: [
    container('migrate', { cpu: '10m', memory: '16Mi' }),
    {
      ...container('proxy', { cpu: '50m', memory: '32Mi' }, { memory: '64Mi' }),
      restartPolicy: 'Always',
    },
  ],
  containers: [container('app', { cpu: '100m', memory: '64Mi' })],
};

function recommendation(
  containerName: string,
  cpu: [string, string, string],
  memory: [string, string, string],
): ContainerRecommendation {
  return {
    containerName,
    target: { cpu: cpu[0], memory: memory[0] },
    lowerBound: { cpu: cpu[1], memory: memory[1] },
    upperBound: { cpu: cpu[2], memory: memory[2] },
  };
}

const initResources = (pod: V1Pod, name: string) =>
  pod.spec?.initContainers?.find((c) => c.name === name)?.resources;

describeLocal('native sidecars under a VPA (NativeSidecar on)', () => {
  let webhook: AppProcess;

  beforeAll(async () => {
    await installTandemCrds(kube);
    webhook = await startWebhook({
      kubeconfig: clusterKubeconfig(),
      certificates: await webhookCertificates(),
      extraArgs: ['--ignored-vpa-object-namespaces=kube-system', GATE],
    });
    await waitForRegistration(webhook);
  });

  afterAll(async () => {
    await stopAllApps();
    await deleteWebhookConfiguration(kube);
  });

  it('the webhook, called by the API server, sets the sidecar’s requests at creation and leaves the plain init container alone', async () => {
    const namespace = currentNamespace();
    await vpas.createVpa('mesh', 'mesh', {
      ...MANUAL_RECOMMENDER,
      updatePolicy: { updateMode: 'Initial' },
    });
    await vpas.writeRecommendation('mesh', [
      recommendation(
        'app',
        ['200m', '150m', '300m'],
        ['96Mi', '64Mi', '128Mi'],
      ),
      recommendation('migrate', ['2', '1', '3'], ['1Gi', '1Gi', '1Gi']),
      recommendation('proxy', ['25m', '20m', '40m'], ['48Mi', '40Mi', '64Mi']),
    ]);
    await createDeploymentOfPods(kube, namespace, 'mesh', 1, MESH_POD);
    const [pod] = await waitForRunningPods(kube, namespace, 'mesh', 1);

    expect(initResources(pod as V1Pod, 'proxy')).toEqual({
      requests: { cpu: '25m', memory: '48Mi' },
      // Limit kept in the declared ratio: 64Mi × 48Mi / 32Mi.
      limits: { memory: '96Mi' },
    });
    expect(initResources(pod as V1Pod, 'migrate')).toEqual({
      requests: { cpu: '10m', memory: '16Mi' },
    });
    expect(pod?.spec?.containers[0]?.resources?.requests).toEqual({
      cpu: '200m',
      memory: '96Mi',
    });
    const annotations = pod?.metadata?.annotations ?? {};
    expect(annotations[PodAnnotation.vpaObservedContainers]).toBe('app, proxy');
    expect(annotations[PodAnnotation.vpaUpdates]).toBe(
      'Pod resources updated by mesh: container 0: cpu request, memory request; init-sidecar 1: cpu: limit NOT set since originalLimit is nil or 0, cpu request, memory request, memory limit',
    );
    expect(
      JSON.parse(annotations[PodAnnotation.originalResources] ?? '{}'),
    ).toMatchObject({
      proxy: { requests: { cpu: '50m', memory: '32Mi' } },
    });
  });

  it('the updater resizes a sidecar outside its recommended range in place, under /spec/initContainers, same pods', async () => {
    const namespace = currentNamespace();
    await createDeploymentOfPods(kube, namespace, 'resized', 2, MESH_POD);
    const pods = await waitForRunningPods(kube, namespace, 'resized', 2);
    const uids = new Set(pods.map((pod) => pod.metadata?.uid));
    // Written once the pods run: they keep what they declared until the updater acts.
    await vpas.createVpa('resized', 'resized', {
      ...MANUAL_RECOMMENDER,
      updatePolicy: { updateMode: 'InPlaceOrRecreate' },
    });
    await vpas.writeRecommendation('resized', [
      // The app is within its range: only the sidecar makes the pods updatable.
      recommendation('app', ['100m', '50m', '200m'], ['64Mi', '32Mi', '128Mi']),
      recommendation(
        'proxy',
        ['200m', '150m', '300m'],
        ['32Mi', '16Mi', '64Mi'],
      ),
    ]);
    const updater = await startUpdater({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: 2,
      extraArgs: [
        `--vpa-object-namespace=${namespace}`,
        '--use-admission-controller-status=false',
        GATE,
      ],
    });

    // kwok plays no kubelet for resizes: the resize subresource's patch is what shows.
    const resized = await waitFor(
      'both pods’ sidecar resized in place to cpu 200m, same UIDs',
      async () => {
        const current = await listPods(kube, namespace, 'resized');
        return current.length === 2 &&
          current.every(
            (pod) =>
              uids.has(pod.metadata?.uid) &&
              initResources(pod, 'proxy')?.requests?.['cpu'] === '200m',
          )
          ? current
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
      async () => updater.tail(15),
    );
    for (const pod of resized) {
      expect(initResources(pod, 'migrate')).toEqual({
        requests: { cpu: '10m', memory: '16Mi' },
      });
      expect(pod.spec?.containers[0]?.resources?.requests?.['cpu']).toBe(
        '100m',
      );
    }
    expect(
      updater.entries().filter((entry) => entry.msg === 'pod evicted'),
    ).toEqual([]);
  });
});
