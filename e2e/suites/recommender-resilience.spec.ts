import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { httpGet } from '../harness/http.ts';
import { httpStatusOf } from '../harness/kube.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  startRecommender,
  type LogEntry,
  type RecommenderProcess,
} from '../harness/recommender-process.ts';
import { stopAllApps } from '../harness/app-process.ts';
import {
  CHECKPOINTS,
  VPA_GROUP,
  VPA_VERSION,
  vpaObjects,
} from '../harness/vpa-objects.ts';
import { waitFor } from '../harness/wait.ts';
import { runDeployment } from '../harness/workloads.ts';

// Breaks the local control plane's own metrics APIService for a while: local cluster only
// (suites run one at a time, and the APIService is restored in afterAll whatever happens).
const describeLocal = isLocalCluster() ? describe : describe.skip;

const METRICS_API_SERVICE = 'v1beta1.metrics.k8s.io';
/** A port nothing listens on: the aggregator then answers 503 for metrics.k8s.io. */
const CLOSED_PORT = 1;
const STEADY_TARGET = { cpu: '587m', memory: '628694953' };

const { kube, namespace: currentNamespace } = useTestNamespace(
  'recommender-resilience',
);
let namespace: string;
const vpas = vpaObjects(kube, () => namespace);
let recommender: RecommenderProcess;
const admission = kube.config.makeApiClient(AdmissionregistrationV1Api);

async function metricsServicePort(): Promise<number | undefined> {
  return (
    await kube.apiRegistration.readAPIService({ name: METRICS_API_SERVICE })
  ).spec?.service?.port;
}

async function setMetricsServicePort(port: number): Promise<void> {
  await kube.apiRegistration.patchAPIService({
    name: METRICS_API_SERVICE,
    body: [{ op: 'replace', path: '/spec/service/port', value: port }],
  });
}

/** Waits for a log entry, logged after the first `skip` entries, that `accept` takes. */
function waitForLog(
  description: string,
  accept: (entry: LogEntry) => boolean,
  skip = 0,
  timeoutMs = 60_000,
): Promise<LogEntry> {
  return waitFor(
    description,
    async () => recommender.entries().slice(skip).find(accept),
    { timeoutMs },
    async () => `recommender output tail:\n${recommender.tail(15)}`,
  );
}

describeLocal(
  'the recommender rides out failures without losing history',
  () => {
    let originalPort: number | undefined;
    const policyName = () => `deny-checkpoints-${namespace}`;

    beforeAll(async () => {
      namespace = currentNamespace();
      await installTandemCrds(kube);
      originalPort = await metricsServicePort();
      await runDeployment(kube, namespace, {
        name: 'steady',
        replicas: 1,
        cpuRequest: '500m',
        memoryRequest: '512Mi',
        initialUsage: { cpu: '500m', memory: '500Mi' },
      });
      await vpas.createVpa('steady', 'steady');
      recommender = await startRecommender({
        kubeconfig: clusterKubeconfig(),
        intervalSeconds: 5,
        extraArgs: [`--vpa-object-namespace=${namespace}`],
      });
    });
    afterAll(async () => {
      await stopAllApps();
      if (
        originalPort !== undefined &&
        (await metricsServicePort()) !== originalPort
      )
        await setMetricsServicePort(originalPort);
      await admission
        .deleteValidatingAdmissionPolicyBinding({ name: policyName() })
        .catch(() => undefined);
      await admission
        .deleteValidatingAdmissionPolicy({ name: policyName() })
        .catch(() => undefined);
      // Later suites need the metrics API: leave only once it serves again.
      await waitFor(
        `APIService ${METRICS_API_SERVICE} Available again`,
        async () =>
          (
            await kube.apiRegistration.readAPIService({
              name: METRICS_API_SERVICE,
            })
          ).status?.conditions?.some(
            (c) => c.type === 'Available' && c.status === 'True',
          ) || undefined,
        { timeoutMs: 60_000 },
      );
    });

    it('keeps cycling and recommending while metrics.k8s.io is down, and takes samples again after', async () => {
      await vpas.waitForRecommendation('steady', 'a first recommendation', {
        context: () => recommender.tail(15),
      });
      expect(originalPort).toEqual(expect.any(Number));

      const before = recommender.entries().length;
      await setMetricsServicePort(CLOSED_PORT);
      try {
        const warning = await waitForLog(
          'a cycle that found metrics.k8s.io unavailable',
          (entry) =>
            entry.kind === 'metrics' &&
            String(entry.msg).startsWith(
              'metrics.k8s.io unavailable, no samples this cycle: ',
            ),
          before,
        );
        expect(warning.msg).toMatch(/503|unavailable/i);
        // The cycle still completes (no samples), so health stays good.
        const cycle = await waitForLog(
          'a completed cycle without samples',
          (entry) => entry.msg === 'cycle done' && entry.samples === 0,
          before,
        );
        expect(cycle.errors).toBeGreaterThanOrEqual(1);
        expect((await httpGet(`${recommender.url}/healthz`)).status).toBe(200);
        const metrics = (await httpGet(`${recommender.url}/metrics`)).body;
        expect(metrics).toMatch(
          /^vpa_recommender_metric_server_responses\{is_error="true",client_name="default-metrics-client"\} [1-9]/m,
        );
        // History is kept: the recommendation is unchanged.
        expect(
          (
            await vpas.waitForRecommendation(
              'steady',
              'the recommendation kept',
            )
          ).recommendation.target,
        ).toEqual(STEADY_TARGET);
      } finally {
        await setMetricsServicePort(originalPort ?? 0);
      }

      const restored = recommender.entries().length;
      await waitForLog(
        'a cycle with samples again once metrics.k8s.io is back',
        (entry) => entry.msg === 'cycle done' && Number(entry.samples ?? 0) > 0,
        restored,
        120_000,
      );
    });

    it('goes on writing statuses while checkpoint writes are refused, and writes them again after', async () => {
      // A real admission failure for every checkpoint write in this namespace.
      await admission.createValidatingAdmissionPolicy({
        body: {
          metadata: { name: policyName() },
          spec: {
            failurePolicy: 'Fail',
            matchConstraints: {
              resourceRules: [
                {
                  apiGroups: [VPA_GROUP],
                  apiVersions: [VPA_VERSION],
                  operations: ['CREATE', 'UPDATE'],
                  resources: [CHECKPOINTS],
                },
              ],
            },
            validations: [
              { expression: 'false', message: 'checkpoints are frozen' },
            ],
          },
        },
      });
      await admission.createValidatingAdmissionPolicyBinding({
        body: {
          metadata: { name: policyName() },
          spec: {
            policyName: policyName(),
            validationActions: ['Deny'],
            matchResources: {
              namespaceSelector: {
                matchLabels: { 'kubernetes.io/metadata.name': namespace },
              },
            },
          },
        },
      });
      // The policy takes effect once the API server has compiled it: probe until refused.
      await waitFor('the policy to refuse a checkpoint write', async () => {
        try {
          await vpas.createCheckpoint('probe-', {
            vpaObjectName: 'probe',
            containerName: 'app',
          });
          return undefined;
        } catch (error) {
          return httpStatusOf(error) === 422 ? true : undefined;
        }
      });

      const before = recommender.entries().length;
      await vpas.createVpa('late', 'steady');
      const refused = await waitForLog(
        'a refused checkpoint write of VPA late',
        (entry) =>
          entry.kind === 'checkpoint-write' &&
          String(entry.msg).startsWith(
            `checkpoint late-app of VPA ${namespace}/late not written: `,
          ),
        before,
      );
      expect(refused.msg).toContain('checkpoints are frozen');
      // Statuses are a different write and still go through.
      await vpas.waitForRecommendation(
        'late',
        'a recommendation despite the refusals',
        {
          context: () => recommender.tail(15),
        },
      );
      expect(await vpas.readCheckpoint('late-app')).toBeUndefined();

      await admission.deleteValidatingAdmissionPolicyBinding({
        name: policyName(),
      });
      await admission.deleteValidatingAdmissionPolicy({ name: policyName() });
      const checkpoint = await waitFor(
        'checkpoint late-app once writes are allowed again',
        () => vpas.readCheckpoint('late-app'),
        { timeoutMs: 60_000 },
        async () => `recommender output tail:\n${recommender.tail(15)}`,
      );
      expect(checkpoint.status?.version).toBe('v3');
      expect(recommender.exitStatus()).toBeUndefined();
    });
  },
);
