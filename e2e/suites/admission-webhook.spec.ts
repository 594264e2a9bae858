import {
  AdmissionregistrationV1Api,
  CoordinationV1Api,
  type V1Container,
  type V1OwnerReference,
  type V1Pod,
} from '@kubernetes/client-node';
import {
  parseCpuMillicores,
  parseMemoryBytes,
  PodAnnotation,
} from '@tandem/vpa-api';
import { stopAllApps, type AppProcess } from '../harness/app-process.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { httpGet } from '../harness/http.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import { waitFor } from '../harness/wait.ts';
import {
  createInvalidVpa,
  UPSTREAM_INVALID_VPA_MESSAGE,
} from '../harness/webhook-expectations.ts';
import {
  vpaObjects,
  VPA_GROUP,
  VPA_VERSION,
  VPAS,
} from '../harness/vpa-objects.ts';
import {
  deleteWebhookConfiguration,
  fingerprintOf,
  postToWebhook,
  startWebhook,
  waitForRegistration,
  webhookCertificates,
  type WebhookCertificates,
} from '../harness/webhook-process.ts';
import {
  listPods,
  ON_FAKE_NODES,
  waitForRunningPods,
} from '../harness/workloads.ts';

const ORIGINALS = PodAnnotation.originalResources;
const CONFIGURATION = 'vpa-webhook-config';

// The webhook runs as a host process the API server reaches on 127.0.0.1.
const describeLocal = isLocalCluster() ? describe : describe.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('webhook');
const registrations = kube.config.makeApiClient(AdmissionregistrationV1Api);
const vpas = vpaObjects(kube, () => currentNamespace());

const APP_RESOURCES = {
  requests: { cpu: '500m', memory: '512Mi' },
  limits: { cpu: '1', memory: '1Gi' },
};
const SIDECAR_RESOURCES = { requests: { cpu: '100m', memory: '128Mi' } };
const INIT_RESOURCES = { requests: { cpu: '10m', memory: '16Mi' } };

const container = (
  name: string,
  resources: V1Container['resources'],
): V1Container => ({ name, image: 'registry.invalid/tandem-e2e:1', resources });

/** Pod template of the suite's workloads: a main container, a sidecar, an init container. */
function podSpec(): V1Pod['spec'] {
  return {
    ...ON_FAKE_NODES,
    initContainers: [container('init', INIT_RESOURCES)],
    containers: [
      container('app', APP_RESOURCES),
      container('sidecar', SIDECAR_RESOURCES),
    ],
  };
}

async function createPod(
  name: string,
  labels: Record<string, string>,
  annotations?: Record<string, string>,
  ownerReferences?: V1OwnerReference[],
): Promise<V1Pod> {
  return kube.core.createNamespacedPod({
    namespace: currentNamespace(),
    body: {
      metadata: { name, labels, annotations, ownerReferences },
      spec: podSpec(),
    },
  });
}

const SUITE_RECOMMENDATION = [
  {
    containerName: 'app',
    target: { cpu: '250m', memory: '256Mi' },
    lowerBound: { cpu: '200m', memory: '200Mi' },
    upperBound: { cpu: '400m', memory: '400Mi' },
  },
  {
    containerName: 'sidecar',
    target: { cpu: '50m', memory: '64Mi' },
    lowerBound: { cpu: '25m', memory: '32Mi' },
    upperBound: { cpu: '100m', memory: '128Mi' },
  },
];

async function writeRecommendation(
  vpaName: string,
  containerRecommendations: object[] = SUITE_RECOMMENDATION,
): Promise<void> {
  await kube.customObjects.patchNamespacedCustomObjectStatus({
    group: VPA_GROUP,
    version: VPA_VERSION,
    namespace: currentNamespace(),
    plural: VPAS,
    name: vpaName,
    body: [
      {
        op: 'add',
        path: '/status',
        value: { recommendation: { containerRecommendations } },
      },
    ],
  });
}

const cpu = (pod: V1Pod, name: string, field: 'requests' | 'limits') =>
  pod.spec?.containers.find((c) => c.name === name)?.resources?.[field]?.[
    'cpu'
  ];
const memory = (pod: V1Pod, name: string, field: 'requests' | 'limits') =>
  pod.spec?.containers.find((c) => c.name === name)?.resources?.[field]?.[
    'memory'
  ];
const millicores = (text: string | undefined) =>
  text === undefined ? undefined : parseCpuMillicores(text);
const bytes = (text: string | undefined) =>
  text === undefined ? undefined : parseMemoryBytes(text);

const EXPECTED_ORIGINALS = {
  init: { requests: INIT_RESOURCES.requests, limits: {} },
  app: APP_RESOURCES,
  sidecar: { requests: SIDECAR_RESOURCES.requests, limits: {} },
};

describeLocal(
  'the admission webhook, called by the API server (registered by URL)',
  () => {
    let certificates: WebhookCertificates;
    let webhook: AppProcess;
    const logTail = () => `webhook output tail:\n${webhook.tail(20)}`;
    // The server listens on every interface; the API server and the tests use loopback.
    const webhookUrl = () => `https://127.0.0.1:${new URL(webhook.url).port}/`;
    /** Names of `pods` the webhook has not logged a review of (yet). */
    const notReviewed = (pods: V1Pod[]) => {
      const reviewed = new Set(
        webhook
          .entries()
          .filter((entry) => entry['resource'] === 'Pod')
          .map((entry) => entry['pod']),
      );
      return pods
        .map((pod) => pod.metadata?.name)
        .filter((name) => !reviewed.has(name));
    };
    const waitForReviews = (pods: V1Pod[]) =>
      waitFor(
        'the webhook to log a review of every pod',
        async () => (notReviewed(pods).length === 0 ? true : undefined),
        { timeoutMs: 10_000 },
        async () =>
          `not reviewed: ${notReviewed(pods).join(', ')}; ${logTail()}`,
      );

    beforeAll(async () => {
      await installTandemCrds(kube);
      certificates = await webhookCertificates();
      webhook = await startWebhook({
        kubeconfig: clusterKubeconfig(),
        certificates,
        extraArgs: ['--ignored-vpa-object-namespaces=kube-system'],
        // One log line per review, so a test can see a pod admitted and left unchanged.
        env: { LOG_LEVEL: 'debug' },
      });
      await waitForRegistration(webhook);
    });

    afterAll(async () => {
      await stopAllApps();
      await deleteWebhookConfiguration(kube);
    });

    it('registers upstream’s configuration: one webhook vpa.k8s.io, fail-open, by URL with its CA', async () => {
      const configuration =
        await registrations.readMutatingWebhookConfiguration({
          name: CONFIGURATION,
        });
      const [webhookEntry, ...others] = configuration.webhooks ?? [];
      expect(others).toEqual([]);
      expect(webhookEntry?.name).toBe('vpa.k8s.io');
      expect(webhookEntry?.failurePolicy).toBe('Ignore');
      expect(webhookEntry?.sideEffects).toBe('None');
      expect(webhookEntry?.clientConfig.url).toBe(
        webhookUrl().replace(/\/$/, ''),
      );
      expect(
        Buffer.from(
          webhookEntry?.clientConfig.caBundle ?? '',
          'base64',
        ).toString(),
      ).toBe(certificates.ca.certPem);
    });

    it('gives a Deployment’s new pods the recommendation and proportional limits, records what was declared, and leaves the template alone', async () => {
      // The VPA exists a moment before its pods: the webhook's cache must already know it.
      await vpas.createVpa('web', 'web', {
        updatePolicy: { updateMode: 'Initial' },
      });
      await writeRecommendation('web');
      const labels = { app: 'web' };
      await kube.apps.createNamespacedDeployment({
        namespace: currentNamespace(),
        body: {
          metadata: { name: 'web', labels },
          spec: {
            replicas: 2,
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: podSpec() },
          },
        },
      });
      const pods = await waitForRunningPods(kube, currentNamespace(), 'web', 2);
      for (const pod of pods) {
        const context = `pod ${pod.metadata?.name}: ${JSON.stringify(pod.spec?.containers.map((c) => c.resources))} ${JSON.stringify(pod.metadata?.annotations)}; ${logTail()}`;
        expect({
          appCpu: millicores(cpu(pod, 'app', 'requests')),
          appMemory: bytes(memory(pod, 'app', 'requests')),
          appCpuLimit: millicores(cpu(pod, 'app', 'limits')),
          appMemoryLimit: bytes(memory(pod, 'app', 'limits')),
          sidecarCpu: millicores(cpu(pod, 'sidecar', 'requests')),
          sidecarMemory: bytes(memory(pod, 'sidecar', 'requests')),
          sidecarLimits: pod.spec?.containers[1]?.resources?.limits,
          context: expect.any(String),
        }).toEqual({
          appCpu: 250,
          appMemory: 256 * 2 ** 20,
          // The declared limit-to-request ratio (2) is kept.
          appCpuLimit: 500,
          appMemoryLimit: 512 * 2 ** 20,
          sidecarCpu: 50,
          sidecarMemory: 64 * 2 ** 20,
          sidecarLimits: undefined,
          context,
        });
        const annotations = pod.metadata?.annotations ?? {};
        expect(JSON.parse(annotations[ORIGINALS] ?? 'null')).toEqual(
          EXPECTED_ORIGINALS,
        );
        expect(annotations['vpaObservedContainers']).toBe('app, sidecar');
        expect(annotations['vpaUpdates']).toMatch(
          /^Pod resources updated by web: container 0: /,
        );
        // Init containers are recorded, not changed.
        expect(pod.spec?.initContainers?.[0]?.resources?.requests).toEqual(
          INIT_RESOURCES.requests,
        );
      }
      const deployment = await kube.apps.readNamespacedDeployment({
        namespace: currentNamespace(),
        name: 'web',
      });
      expect(
        deployment.spec?.template.spec?.containers.map((c) => c.resources),
      ).toEqual([APP_RESOURCES, SIDECAR_RESOURCES]);
    });

    it('keeps an original-resources annotation the pod already carries', async () => {
      const declared = JSON.stringify({
        app: { requests: { cpu: '2' }, limits: {} },
      });
      // Owned by the Deployment itself, which leaves pods to its ReplicaSets: the VPA's
      // target is its top-most controller, so the webhook applies the recommendation.
      const web = await kube.apps.readNamespacedDeployment({
        namespace: currentNamespace(),
        name: 'web',
      });
      const pod = await createPod(
        'recreated',
        { app: 'web' },
        { [ORIGINALS]: declared },
        [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: 'web',
            uid: web.metadata?.uid ?? '',
            controller: true,
          },
        ],
      );
      expect(pod.metadata?.annotations?.[ORIGINALS]).toBe(declared);
      expect(millicores(cpu(pod, 'app', 'requests'))).toBe(250);
    });

    it('leaves a bare pod no VPA controls as submitted: no Tandem or upstream annotation', async () => {
      const pod = await createPod('unmanaged', { app: 'other' });
      await waitForReviews([pod]);
      expect(pod.metadata?.annotations ?? {}).toEqual({});
      expect(pod.spec?.containers.map((c) => c.resources)).toEqual([
        APP_RESOURCES,
        SIDECAR_RESOURCES,
      ]);
    });

    it('tells a mode-Off VPA, with a PodLeftUnchanged event, of each pod it leaves as declared', async () => {
      await vpas.createVpa('off', 'off', {
        updatePolicy: { updateMode: 'Off' },
      });
      await writeRecommendation('off');
      const labels = { app: 'off' };
      await kube.apps.createNamespacedDeployment({
        namespace: currentNamespace(),
        body: {
          metadata: { name: 'off', labels },
          spec: {
            replicas: 1,
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: podSpec() },
          },
        },
      });
      const [pod] = await waitForRunningPods(
        kube,
        currentNamespace(),
        'off',
        1,
      );
      expect(pod?.spec?.containers.map((c) => c.resources)).toEqual([
        APP_RESOURCES,
        SIDECAR_RESOURCES,
      ]);
      const [event] = await waitFor(
        'a PodLeftUnchanged event on VPA off',
        async () => {
          const { items } = await kube.core.listNamespacedEvent({
            namespace: currentNamespace(),
            fieldSelector:
              'involvedObject.kind=VerticalPodAutoscaler,involvedObject.name=off,reason=PodLeftUnchanged',
          });
          return items.length > 0 ? items : undefined;
        },
        { timeoutMs: 15_000 },
        async () => logTail(),
      );
      expect(event).toMatchObject({
        type: 'Normal',
        source: { component: 'tandem-admission-webhook' },
      });
      expect(event?.message).toMatch(
        /^Pod off-[a-z0-9]+-% of ReplicaSet off-[a-z0-9]+ admitted with its resources as declared: update mode Off$/,
      );
    });

    it('leaves the cpu of a pod with pod-level cpu as declared, applies memory, and its Deployment runs', async () => {
      await vpas.createVpa('pod-level', 'pod-level', {
        updatePolicy: { updateMode: 'Initial' },
      });
      await writeRecommendation('pod-level', [
        { containerName: 'app', target: { cpu: '2', memory: '256Mi' } },
      ]);
      const labels = { app: 'pod-level' };
      const podLevel = { requests: { cpu: '1' }, limits: { cpu: '1' } };
      await kube.apps.createNamespacedDeployment({
        namespace: currentNamespace(),
        body: {
          metadata: { name: 'pod-level', labels },
          spec: {
            replicas: 2,
            selector: { matchLabels: labels },
            template: {
              metadata: { labels },
              spec: {
                ...ON_FAKE_NODES,
                // Before ADR 0016 the webhook raised cpu to 2 here, and the API server
                // refused every pod (aggregate container requests above the pod's 1).
                resources: podLevel,
                containers: [container('app', { requests: { cpu: '500m' } })],
              },
            },
          },
        },
      });
      const pods = await waitForRunningPods(
        kube,
        currentNamespace(),
        'pod-level',
        2,
      );
      for (const pod of pods) {
        expect({
          appCpu: millicores(cpu(pod, 'app', 'requests')),
          appMemory: bytes(memory(pod, 'app', 'requests')),
          podLimits: pod.spec?.resources?.limits,
          podCpu: millicores(pod.spec?.resources?.requests?.['cpu']),
          updates: pod.metadata?.annotations?.['vpaUpdates'],
        }).toEqual({
          appCpu: 500,
          appMemory: 256 * 2 ** 20,
          podLimits: podLevel.limits,
          podCpu: 1000,
          updates:
            'Pod resources updated by pod-level: container 0: memory request',
        });
      }
      expect(
        webhook
          .entries()
          .some((entry) =>
            String(entry.msg).includes(
              'left as declared: the pod sets them at pod level',
            ),
          ),
      ).toBe(true);
    });

    it('refuses an invalid VPA with upstream’s message', async () => {
      expect(await createInvalidVpa(vpas, 'invalid', 'web')).toEqual({
        status: 422,
        message: expect.stringMatching(UPSTREAM_INVALID_VPA_MESSAGE),
      });
    });

    it('answers garbage with a 4xx and a reason, and keeps serving', async () => {
      const garbage = await postToWebhook(
        webhookUrl(),
        certificates.ca.certPem,
        '{"not json',
      );
      expect(garbage.status).toBe(400);
      expect(JSON.parse(garbage.body)).toMatchObject({
        kind: 'Status',
        code: 400,
      });
      const wrongType = await postToWebhook(
        webhookUrl(),
        certificates.ca.certPem,
        'x',
        'text/plain',
      );
      expect(wrongType.status).toBe(415);
      const oversized = await postToWebhook(
        webhookUrl(),
        certificates.ca.certPem,
        JSON.stringify({ padding: 'x'.repeat(6 * 2 ** 20) }),
      );
      expect(oversized.status).toBe(413);
      await waitForReviews([
        await createPod('after-garbage', { app: 'other' }),
      ]);
    });

    it('rotates its serving certificate while pods are being created, without one missed admission', async () => {
      const names = Array.from(
        { length: 24 },
        (_, index) => `rotation-${index}`,
      );
      let rotated: { serving: { certPem: string } } | undefined;
      const created: V1Pod[] = [];
      for (const [index, name] of names.entries()) {
        if (index === 8) rotated = await certificates.rotate();
        created.push(await createPod(name, { app: 'rotation' }));
      }
      // A pod the webhook missed (failurePolicy Ignore) is created all the same, unreviewed.
      await waitForReviews(created);
      const expected = fingerprintOf(rotated?.serving.certPem ?? '');
      await waitFor(
        'the webhook to serve the rotated certificate',
        async () => {
          const answer = await postToWebhook(
            webhookUrl(),
            certificates.ca.certPem,
            '{}',
          );
          return answer.fingerprint === expected ? true : undefined;
        },
        { timeoutMs: 15_000 },
        async () => logTail(),
      );
      expect(
        webhook
          .entries()
          .some((entry) => entry.msg === 'New certificate found, reloading'),
      ).toBe(true);
    });

    it('patches the registered caBundle when its CA rotates', async () => {
      const { ca } = await certificates.rotate({ newCa: true });
      const expected = Buffer.from(ca.certPem).toString('base64');
      await waitFor(
        'the caBundle of vpa-webhook-config to hold the new CA',
        async () => {
          const configuration =
            await registrations.readMutatingWebhookConfiguration({
              name: CONFIGURATION,
            });
          return configuration.webhooks?.[0]?.clientConfig.caBundle === expected
            ? true
            : undefined;
        },
        { timeoutMs: 20_000 },
        async () => logTail(),
      );
      await waitForReviews([
        await createPod('after-ca-rotation', { app: 'other' }),
      ]);
    });

    it('renews upstream’s status Lease, which the updater reads as "the webhook is up"', async () => {
      const leases = kube.config.makeApiClient(CoordinationV1Api);
      const renewTime = async () => {
        const lease = await leases.readNamespacedLease({
          namespace: 'kube-system',
          name: 'vpa-admission-controller',
        });
        return new Date(lease.spec?.renewTime ?? 0).getTime();
      };
      const first = await waitFor(
        'the Lease kube-system/vpa-admission-controller',
        async () => ((await renewTime()) > 0 ? renewTime() : undefined),
        { timeoutMs: 15_000 },
        async () => logTail(),
      );
      // --status-lease-update-interval=2s in the harness.
      await waitFor(
        'the status Lease to be renewed',
        async () => ((await renewTime()) > first ? true : undefined),
        { timeoutMs: 15_000 },
        async () => logTail(),
      );
    });

    it('exports upstream’s admission metrics', async () => {
      const ops = webhook
        .entries()
        .find((entry) => entry.msg === 'ops server listening');
      const { status, body } = await httpGet(`${String(ops?.['url'])}/metrics`);
      expect(status).toBe(200);
      expect(body).toMatch(
        /vpa_admission_controller_admission_pods_total\{applied="true"\} [1-9]/,
      );
      expect(body).toMatch(
        /vpa_admission_controller_admission_latency_seconds_count\{status="error",resource="VPA"\} [1-9]/,
      );
      expect(body).toMatch(
        /tandem_admission_rejected_input_total\{kind="oversized"\} 1/,
      );
    });

    it('fails open: with the webhook stopped, pods are still created', async () => {
      await webhook.stop();
      const pod = await createPod('fail-open', { app: 'web' });
      expect(pod.metadata?.annotations?.[ORIGINALS]).toBeUndefined();
      expect(millicores(cpu(pod, 'app', 'requests'))).toBe(500);
      expect(
        (await listPods(kube, currentNamespace(), 'web')).length,
      ).toBeGreaterThanOrEqual(3);
    });
  },
);
