import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AuthorizationV1Api,
  dumpYaml,
  type KubernetesObject,
  type V1APIService,
  type V1Deployment,
  type V2MetricSpec,
} from '@kubernetes/client-node';
import {
  startMetricsAdapter,
  type MetricsAdapter,
} from '../harness/adapter-process.ts';
import { stopAllApps } from '../harness/app-process.ts';
import { clusterKubeconfig, isLocalCluster } from '../harness/cluster-env.ts';
import { findObject, kubectl, objectsOfKind } from '../harness/kustomize.ts';
import { DEPLOY_DIR } from '../harness/manifests.ts';
import { renderOverlay } from '../harness/overlay.ts';
import { startLoadDriver, type LoadDriver } from '../harness/load-driver.ts';
import { grantMetricRead } from '../harness/metric-grant.ts';
import { useTestNamespace } from '../harness/namespaces.ts';
import {
  apiServerGet,
  describeResponse,
  tokenKubeConfig,
  type RawResponse,
} from '../harness/raw-get.ts';
import {
  registerTestAdapter,
  startTestAdapter,
  TEST_ADAPTER_SERVICE,
  unregisterTestAdapter,
  type TestAdapter,
} from '../harness/test-adapter-process.ts';
import { waitFor } from '../harness/wait.ts';
import { createDeploymentOfPods, ON_FAKE_NODES } from '../harness/workloads.ts';

// Both providers run as host processes registered through ExternalName Services, so the
// suite needs the local control plane (its aggregator reaches 127.0.0.1).
const describeLocal = isLocalCluster() ? describe : describe.skip;

const { kube, namespace: currentNamespace } = useTestNamespace('upstream');
const authorization = kube.config.makeApiClient(AuthorizationV1Api);
const GROUP = '/apis/custom.metrics.k8s.io/v1beta2';
/** The upstream's metric: a Service's queue depth, as a queue exporter would report it. */
const QUEUE = { resource: 'services', name: 'queue', metric: 'queue_depth' };
/** Reads of one metric per latency sample (forwarded and direct). */
const BENCH_READS = 40;

let upstream: TestAdapter | undefined;
let tandem: MetricsAdapter | undefined;
let driver: LoadDriver | undefined;

const queuePath = () =>
  `${GROUP}/namespaces/${currentNamespace()}/${QUEUE.resource}/${QUEUE.name}/${QUEUE.metric}`;
const tandemPath = () =>
  `${GROUP}/namespaces/${currentNamespace()}/pods/*/cpu_usage`;

async function createHpa(name: string, metric: V2MetricSpec): Promise<void> {
  await kube.autoscaling.createNamespacedHorizontalPodAutoscaler({
    namespace: currentNamespace(),
    body: {
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        minReplicas: 1,
        maxReplicas: 8,
        metrics: [metric],
      },
    },
  });
}

async function describeHpa(name: string): Promise<string> {
  const hpa = await kube.autoscaling.readNamespacedHorizontalPodAutoscaler({
    namespace: currentNamespace(),
    name,
  });
  const conditions = (hpa.status?.conditions ?? [])
    .map((c) => `${c.type}=${c.status}(${c.reason}: ${c.message})`)
    .join(' ');
  return `${name}: replicas ${hpa.status?.currentReplicas}→${hpa.status?.desiredReplicas}; ${conditions}`;
}

const logs = () =>
  `test adapter output tail:\n${upstream?.tail(15) ?? '(not running)'}\nTandem adapter output tail:\n${tandem?.process.tail(15) ?? '(not running)'}`;

function waitForReplicas(name: string, replicas: number): Promise<number> {
  return waitFor(
    `${name} to be scaled to ${replicas} replicas`,
    async () => {
      const deployment = await kube.apps.readNamespacedDeployment({
        namespace: currentNamespace(),
        name,
      });
      return deployment.spec?.replicas === replicas ? replicas : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 1000 },
    async () => `${await describeHpa(name)}\n${logs()}`,
  );
}

/**
 * Reads the HPA's ScalingActive condition every half second until stopped, and keeps every
 * reading that was not True: the HPA read its metric at every sync in between.
 */
function watchScalingActive(name: string): { stop(): Promise<string[]> } {
  const notActive: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const condition = (
        await kube.autoscaling.readNamespacedHorizontalPodAutoscaler({
          namespace: currentNamespace(),
          name,
        })
      ).status?.conditions?.find((c) => c.type === 'ScalingActive');
      if (condition?.status !== 'True')
        notActive.push(
          `${new Date().toISOString()} ${condition?.status}(${condition?.reason}: ${condition?.message})`,
        );
      await sleep(500);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return notActive;
    },
  };
}

/** The test adapter started and registered as the group's provider, with a queue depth. */
async function startRegisteredUpstream(depth: number): Promise<TestAdapter> {
  const started = await startTestAdapter(clusterKubeconfig());
  await registerTestAdapter(kube, started);
  await started.writeMetric(
    currentNamespace(),
    QUEUE.resource,
    QUEUE.name,
    QUEUE.metric,
    depth,
  );
  return started;
}

/** The median latency in ms of `BENCH_READS` sequential reads through the aggregator. */
async function medianReadMs(path: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < BENCH_READS; i += 1) {
    const started = process.hrtime.bigint();
    const answer = await apiServerGet(kube.config, path);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (answer.status !== 200)
      throw new Error(`${path}: ${describeResponse(answer)}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const discoveryNames = async (): Promise<string[]> => {
  const answer = await apiServerGet(kube.config, GROUP);
  if (answer.status !== 200)
    throw new Error(`discovery: ${describeResponse(answer)}`);
  return (answer.body as { resources: { name: string }[] }).resources.map(
    (resource) => resource.name,
  );
};

/** A ServiceAccount's token with `get` on Tandem's cpu_usage only. */
async function tandemOnlyReader(): Promise<RawResponseGetter> {
  const namespace = currentNamespace();
  const name = 'tandem-metrics-only';
  await kube.core.createNamespacedServiceAccount({
    namespace,
    body: { metadata: { name } },
  });
  await grantMetricRead(kube, namespace, name, ['pods/cpu_usage']);
  const token = (
    await kube.core.createNamespacedServiceAccountToken({
      namespace,
      name,
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    })
  ).status?.token;
  if (token === undefined) throw new Error('no token for the ServiceAccount');
  const config = tokenKubeConfig(kube.config, token);
  return (path) => apiServerGet(config, path);
}

type RawResponseGetter = (path: string) => Promise<RawResponse>;

function waitForStatus(
  description: string,
  get: () => Promise<RawResponse>,
  expected: number,
): Promise<RawResponse> {
  let last: RawResponse | undefined;
  return waitFor(
    description,
    async () => {
      last = await get();
      return last.status === expected ? last : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500 },
    async () =>
      `${last === undefined ? 'no answer' : describeResponse(last)}\n${logs()}`,
  );
}

describeLocal(
  'Tandem installed over the custom metrics provider a cluster already has',
  () => {
    afterAll(async () => {
      await driver?.stop();
      await tandem?.stop();
      await upstream?.stop();
      await unregisterTestAdapter(kube);
      await stopAllApps();
    });

    it('passes the old metrics through, keeps the old HPA scaling across the switch, serves its own, and refuses what the caller may not read', async () => {
      const namespace = currentNamespace();
      const kubeconfig = clusterKubeconfig();

      // The cluster before Tandem: the test adapter is custom.metrics.k8s.io, an HPA
      // scales a Deployment on its queue depth (300 for 100 a replica: 3 replicas).
      upstream = await startRegisteredUpstream(300);
      const pod = {
        ...ON_FAKE_NODES,
        containers: [
          {
            name: 'app',
            image: 'registry.invalid/tandem-e2e:1',
            resources: { requests: { cpu: '100m', memory: '64Mi' } },
          },
        ],
      };
      await createDeploymentOfPods(kube, namespace, 'worker', 1, pod);
      await createHpa('worker', {
        type: 'Object',
        object: {
          describedObject: {
            apiVersion: 'v1',
            kind: 'Service',
            name: QUEUE.name,
          },
          metric: { name: QUEUE.metric },
          target: { type: 'AverageValue', averageValue: '100' },
        },
      });
      await waitForReplicas('worker', 3);
      const upstreamNames = await discoveryNames();
      const directMs = await medianReadMs(queuePath());

      // Tandem takes the APIServices over (patched in place, as kubectl apply does) with
      // the test adapter as its upstream; the old HPA is watched throughout.
      const scalingActive = watchScalingActive('worker');
      tandem = await startMetricsAdapter(
        kube,
        kubeconfig,
        [
          `--upstream-provider=${upstream.url}`,
          `--upstream-provider-ca-file=${upstream.caFile}`,
        ],
        { takeOver: true },
      );
      const merged = await discoveryNames();
      expect(merged).toEqual(
        expect.arrayContaining([
          ...upstreamNames,
          'pods/cpu_usage',
          'pods/memory_usage',
        ]),
      );
      const forwardedMs = await medianReadMs(queuePath());
      console.log(
        `forwarded read through Tandem: median ${forwardedMs.toFixed(1)} ms over ${BENCH_READS} reads through the aggregator, direct to the test adapter ${directMs.toFixed(1)} ms (+${(forwardedMs - directMs).toFixed(1)} ms)`,
      );

      // The old HPA keeps scaling on the upstream's metric, now through Tandem.
      await upstream.writeMetric(
        namespace,
        QUEUE.resource,
        QUEUE.name,
        QUEUE.metric,
        500,
      );
      await waitForReplicas('worker', 5);
      expect(await scalingActive.stop()).toEqual([]);

      // A new HPA on Tandem's own metric: 300m of load for 100m a replica.
      await createDeploymentOfPods(kube, namespace, 'web', 1, pod);
      driver = await startLoadDriver(kube, namespace, 'app=web', {
        cpuMillicores: 300,
      });
      await createHpa('web', {
        type: 'Pods',
        pods: {
          metric: { name: 'cpu_usage' },
          target: { type: 'AverageValue', averageValue: '100m' },
        },
      });
      await waitFor(
        'the HPA on Tandem’s cpu_usage to scale web up',
        async () => {
          const deployment = await kube.apps.readNamespacedDeployment({
            namespace,
            name: 'web',
          });
          return (deployment.spec?.replicas ?? 0) >= 2 ? true : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 1000 },
        async () => `${await describeHpa('web')}\n${logs()}`,
      );

      // The upstream stops: Tandem's metrics and discovery still answer, the upstream's
      // metric a 503 Status naming the provider.
      await upstream.stop();
      expect((await apiServerGet(kube.config, tandemPath())).status).toBe(200);
      expect(await discoveryNames()).toEqual(
        expect.arrayContaining(['pods/cpu_usage']),
      );
      const down = await waitForStatus(
        'the upstream metric to answer 503 once its provider stopped',
        () => apiServerGet(kube.config, queuePath()),
        503,
      );
      expect(down.body).toEqual(
        expect.objectContaining({
          kind: 'Status',
          code: 503,
          message: expect.stringContaining(
            `the upstream custom metrics provider ${upstream.url}`,
          ),
        }),
      );

      // A caller allowed Tandem's metric only: Tandem refuses the upstream's (403, its own
      // review, since the upstream is down it cannot be the upstream's answer).
      const reader = await tandemOnlyReader();
      await waitForStatus(
        'the restricted reader to read Tandem’s metric',
        () => reader(tandemPath()),
        200,
      );
      const refused = await reader(queuePath());
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 403,
        body: expect.objectContaining({
          kind: 'Status',
          code: 403,
          message: expect.stringContaining(`services/${QUEUE.metric}`),
        }),
      });
    });

    it('installs and uninstalls as deploy/upstream-provider/README.md says: the adapter pointed at the provider and granted its reads, the provider’s APIServices given back', async () => {
      const namespace = currentNamespace();
      const overlay = await renderOverlay({
        resources: [DEPLOY_DIR],
        components: [join(DEPLOY_DIR, 'upstream-provider')],
      });
      const grant = [
        findObject(
          overlay.objects,
          'ClusterRole',
          'tandem-metrics-adapter-upstream-provider',
        ),
        findObject(
          overlay.objects,
          'ClusterRoleBinding',
          'tandem-metrics-adapter-upstream-provider',
        ),
      ];
      /** `kubectl apply -f` of a file the README's user would hold, written first. */
      const applyFile = async (name: string, text: string) => {
        const path = join(overlay.dir, name);
        writeFileSync(path, text);
        await kubectl('apply', '-f', path);
      };
      const asYaml = (objects: readonly KubernetesObject[]) =>
        objects.map((object) => dumpYaml(object)).join('---\n');
      try {
        // The adapter reads the provider's URL and CA from the ConfigMap the README makes.
        const adapter = findObject<V1Deployment>(
          overlay.objects,
          'Deployment',
          'tandem-metrics-adapter',
        ).spec?.template.spec;
        expect(adapter?.containers[0]?.args).toEqual(
          expect.arrayContaining([
            '--upstream-provider=$(TANDEM_UPSTREAM_PROVIDER)',
            '--upstream-provider-ca-file=/etc/upstream-provider/ca.crt',
          ]),
        );
        expect(adapter?.containers[0]?.env).toContainEqual({
          name: 'TANDEM_UPSTREAM_PROVIDER',
          valueFrom: {
            configMapKeyRef: { name: 'tandem-upstream-provider', key: 'url' },
          },
        });
        expect(adapter?.volumes).toContainEqual({
          name: 'upstream-provider',
          configMap: {
            name: 'tandem-upstream-provider',
            items: [{ key: 'ca.crt', path: 'ca.crt' }],
          },
        });

        // Its ServiceAccount may read the provider's metrics with the component's grant,
        // and only with it.
        const adapterMayRead = async () =>
          (
            await authorization.createSubjectAccessReview({
              body: {
                spec: {
                  user: 'system:serviceaccount:tandem-system:tandem-metrics-adapter',
                  groups: ['system:serviceaccounts', 'system:authenticated'],
                  resourceAttributes: {
                    group: 'custom.metrics.k8s.io',
                    resource: `${QUEUE.resource}/${QUEUE.metric}`,
                    name: QUEUE.name,
                    namespace,
                    verb: 'get',
                  },
                },
              },
            })
          ).status?.allowed === true;
        expect(await adapterMayRead()).toBe(false);
        await applyFile('grant.yaml', asYaml(grant));
        await waitFor('the component’s grant to apply', async () =>
          (await adapterMayRead()) ? true : undefined,
        );

        // The provider serves the group, and its APIServices are saved as step 1 says.
        await tandem?.stop();
        tandem = undefined;
        await unregisterTestAdapter(kube);
        upstream = await startRegisteredUpstream(300);
        const saved = (
          await kubectl(
            'get',
            'apiservice',
            'v1beta1.custom.metrics.k8s.io',
            'v1beta2.custom.metrics.k8s.io',
            '-o',
            'yaml',
          )
        )
          .split('\n')
          .filter(
            (line) =>
              !/^ {4}(resourceVersion|uid|creationTimestamp):/.test(line),
          )
          .join('\n');

        // Tandem's APIServices applied over them, then given back as the uninstall says.
        const tandemApiServices = objectsOfKind<V1APIService>(
          overlay.objects,
          'APIService',
        );
        expect(
          tandemApiServices.map(
            (object) =>
              object.metadata?.labels?.['app.kubernetes.io/component'],
          ),
        ).toEqual(['apiservice', 'apiservice']);
        await applyFile('tandem-apiservices.yaml', asYaml(tandemApiServices));
        const routedTo = async () =>
          (
            await kube.apiRegistration.readAPIService({
              name: 'v1beta2.custom.metrics.k8s.io',
            })
          ).spec?.service;
        expect(await routedTo()).toMatchObject({
          namespace: 'tandem-system',
          name: 'tandem-metrics-adapter',
        });
        await applyFile('previous.yaml', saved);
        expect(await routedTo()).toMatchObject(TEST_ADAPTER_SERVICE);
        const answer = await waitForStatus(
          'the provider’s metric to answer again once given back',
          () => apiServerGet(kube.config, queuePath()),
          200,
        );
        expect(answer.body).toMatchObject({
          items: [expect.objectContaining({ value: '300' })],
        });

        // The uninstall's delete leaves exactly the APIServices out.
        const names = async (...selector: string[]) =>
          (
            await kubectl(
              'create',
              '-k',
              overlay.dir,
              '--dry-run=client',
              '-o',
              'name',
              ...selector,
            )
          )
            .split('\n')
            .filter((line) => line !== '');
        const everything = await names();
        const deleted = await names(
          '-l',
          'app.kubernetes.io/component notin (apiservice)',
        );
        expect(deleted).toEqual(
          everything.filter((name) => !name.startsWith('apiservice.')),
        );
        expect(everything.length - deleted.length).toBe(2);
      } finally {
        for (const object of grant)
          await kubectl(
            'delete',
            `${object.kind?.toLowerCase()}.rbac.authorization.k8s.io`,
            object.metadata?.name ?? '',
            '--ignore-not-found',
          );
        overlay.remove();
      }
    });
  },
);
