import type { V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { stopAllApps, type AppProcess } from '../harness/app-process.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { httpStatusOf } from '../harness/kube.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { startUpdater } from '../harness/updater-process.ts';
import { MANUAL_RECOMMENDER, vpaObjects } from '../harness/vpa-objects.ts';
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

// CPU startup boost (upstream's CPUStartupBoost gate, docs/decisions/0031) on the real
// control plane: the API server calls the webhook for VPAs and pods, kwok runs the pods.
// kwok plays no kubelet for resizes, so the unboost shows as the pod's spec after the
// updater's patch of the resize subresource.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const GATE = '--feature-gates=CPUStartupBoost=true';
const { kube, namespace: currentNamespace } = useTestNamespace('boost');
const vpas = vpaObjects(kube, () => currentNamespace());

const APP_POD: V1PodSpec = {
  ...ON_FAKE_NODES,
  containers: [
    {
      name: 'app',
      image: 'registry.invalid/tandem-e2e:1',
      resources: {
        requests: { cpu: '100m', memory: '64Mi' },
        limits: { cpu: '200m' },
      },
    },
  ],
};
const ORIGINAL =
  '{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m"}}';
const BOOST_KEY = 'vpaCpuStartupBoost/app';
const FORBIDDEN =
  'Forbidden: in order to use startupBoost, you must enable feature gate CPUStartupBoost in the admission-controller args';

const byFactor = { cpu: { type: 'Factor', factor: 3, durationSeconds: 600 } };
const byQuantity = { cpu: { type: 'Quantity', quantity: '500m' } };

/** The API server's answer to creating a VPA: 201, or the status and message of a refusal. */
async function createAnswer(
  name: string,
  spec: Record<string, unknown>,
): Promise<{ status: number | undefined; message?: string }> {
  try {
    await vpas.createVpa(name, name, spec);
    return { status: 201 };
  } catch (error) {
    const body = (error as { body?: unknown }).body;
    const parsed = JSON.parse(String(body ?? '{}')) as { message?: string };
    return { status: httpStatusOf(error), message: parsed.message };
  }
}

const appResources = (pod: V1Pod | undefined) =>
  pod?.spec?.containers[0]?.resources;

async function onePodOf(name: string): Promise<V1Pod> {
  await createDeploymentOfPods(kube, currentNamespace(), name, 1, APP_POD);
  const [pod] = await waitForRunningPods(kube, currentNamespace(), name, 1);
  if (pod === undefined) throw new Error(`no pod of ${name}`);
  return pod;
}

async function withWebhook(extraArgs: string[]): Promise<AppProcess> {
  const webhook = await startWebhook({
    kubeconfig: clusterKubeconfig(),
    certificates: await webhookCertificates(),
    extraArgs: ['--ignored-vpa-object-namespaces=kube-system', ...extraArgs],
  });
  await waitForRegistration(webhook);
  return webhook;
}

describeLocal('CPU startup boost with the gate off', () => {
  beforeAll(async () => {
    await installTandemCrds(kube);
    await withWebhook([]);
  });

  afterAll(async () => {
    await stopAllApps();
    await deleteWebhookConfiguration(kube);
  });

  it('refuses VPAs with a boost by factor or by quantity, pod level or per container, with upstream’s message', async () => {
    expect(await createAnswer('factor', { startupBoost: byFactor })).toEqual({
      status: 422,
      message: expect.stringContaining(`spec.startupBoost: ${FORBIDDEN}`),
    });
    expect(
      await createAnswer('quantity', {
        resourcePolicy: {
          containerPolicies: [
            { containerName: 'app', startupBoost: byQuantity },
          ],
        },
      }),
    ).toEqual({
      status: 422,
      message: expect.stringContaining(
        `spec.resourcePolicy.containerPolicies[0].startupBoost: ${FORBIDDEN}`,
      ),
    });
  });
});

describeLocal('CPU startup boost with the gate on', () => {
  let webhook: AppProcess;

  beforeAll(async () => {
    await installTandemCrds(kube);
    webhook = await withWebhook([GATE, '--max-allowed-cpu-boost=2']);
  });

  afterAll(async () => {
    await stopAllApps();
    await deleteWebhookConfiguration(kube);
  });

  it('checks the boost’s fields with upstream’s messages', async () => {
    expect(
      await createAnswer('no-factor', {
        startupBoost: { cpu: { type: 'Factor' } },
      }),
    ).toEqual({
      status: 422,
      message: expect.stringContaining(
        'spec.startupBoost.cpu.factor: Required value: required when type is Factor',
      ),
    });
    expect(
      await createAnswer('fine-quantity', {
        startupBoost: { cpu: { type: 'Quantity', quantity: '0.5m' } },
      }),
    ).toMatchObject({ status: 422 });
  });

  it('mode Off with a boost by factor: only the boost applies, the limit kept in ratio, the original recorded', async () => {
    await vpas.createVpa('factor', 'factor', {
      ...MANUAL_RECOMMENDER,
      startupBoost: byFactor,
    });
    // Off mode: a recommendation is not applied, only the boost on the declared request.
    await vpas.writeRecommendation('factor', [
      { containerName: 'app', target: { cpu: '900m', memory: '1Gi' } },
    ]);
    const pod = await onePodOf('factor');
    expect(appResources(pod)).toEqual({
      requests: { cpu: '300m', memory: '64Mi' },
      limits: { cpu: '600m' },
    });
    expect(pod.metadata?.annotations?.[BOOST_KEY]).toBe(ORIGINAL);
    expect(pod.metadata?.annotations?.['vpaUpdates']).toBe(
      'Pod resources updated by factor: container 0: cpu request, cpu limit',
    );
  });

  it('a boost by quantity on the recommendation, capped at --max-allowed-cpu-boost', async () => {
    await vpas.createVpa('quantity', 'quantity', {
      ...MANUAL_RECOMMENDER,
      updatePolicy: { updateMode: 'Initial' },
      resourcePolicy: {
        containerPolicies: [
          {
            containerName: 'app',
            startupBoost: { cpu: { type: 'Quantity', quantity: '2' } },
          },
        ],
      },
    });
    await vpas.writeRecommendation('quantity', [
      { containerName: 'app', target: { cpu: '250m', memory: '64Mi' } },
    ]);
    const pod = await onePodOf('quantity');
    // 250m + 2 = 2250m, capped at 2; the limit scales from the declared 100m:200m.
    expect(appResources(pod)).toEqual({
      requests: { cpu: '2', memory: '64Mi' },
      limits: { cpu: '4' },
    });
    expect(pod.metadata?.annotations?.[BOOST_KEY]).toBe(ORIGINAL);
  });

  it('container scaling mode Off: no boost', async () => {
    await vpas.createVpa('scaling-off', 'scaling-off', {
      ...MANUAL_RECOMMENDER,
      startupBoost: byFactor,
      resourcePolicy: {
        containerPolicies: [
          {
            containerName: 'app',
            mode: 'Off',
            controlledValues: 'RequestsOnly',
          },
        ],
      },
    });
    const pod = await onePodOf('scaling-off');
    expect(appResources(pod)).toEqual(APP_POD.containers[0]?.resources);
    expect(pod.metadata?.annotations?.[BOOST_KEY]).toBeUndefined();
  });

  it('the updater ends an expired boost in place, back to the declared values, same pod', async () => {
    const namespace = currentNamespace();
    await vpas.createVpa('unboost', 'unboost', {
      ...MANUAL_RECOMMENDER,
      startupBoost: { cpu: { type: 'Factor', factor: 4, durationSeconds: 1 } },
    });
    const boosted = await onePodOf('unboost');
    expect(appResources(boosted)?.requests?.['cpu']).toBe('400m');
    const updater = await startUpdater({
      kubeconfig: clusterKubeconfig(),
      intervalSeconds: 2,
      extraArgs: [
        `--vpa-object-namespace=${namespace}`,
        '--use-admission-controller-status=false',
        GATE,
      ],
    });

    const unboosted = await waitFor(
      'the pod resized back to cpu 100m / limit 200m and its boost annotation removed',
      async () => {
        const [pod] = await listPods(kube, namespace, 'unboost');
        const resources = appResources(pod);
        return resources?.requests?.['cpu'] === '100m' &&
          resources.limits?.['cpu'] === '200m' &&
          pod?.metadata?.annotations?.[BOOST_KEY] === undefined
          ? pod
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
      async () => `${updater.tail(15)}\n${webhook.tail(5)}`,
    );
    expect(unboosted.metadata?.uid).toBe(boosted.metadata?.uid);
    expect(unboosted.metadata?.annotations?.['vpaInPlaceUpdated']).toBe('true');
    expect(
      updater
        .entries()
        .filter((entry) => entry.msg === 'CPU startup boost ended in place')
        .map((entry) => entry['pod']),
    ).toContain(`${namespace}/${boosted.metadata?.name}`);
    // The Initial-mode pod boosted above (duration 0) goes back to its recommendation.
    const [initial] = await listPods(kube, namespace, 'quantity');
    expect(appResources(initial)).toEqual({
      requests: { cpu: '250m', memory: '64Mi' },
      limits: { cpu: '500m' },
    });
    expect(
      updater.entries().filter((entry) => entry.msg === 'pod evicted'),
    ).toEqual([]);
  });
});
