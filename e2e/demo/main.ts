// `npm start`: the main job. Starts the local control plane, every Tandem app that exists,
// and a demo workload under simulated varying load; prints what to watch; runs until
// Ctrl-C, then stops everything it started.
import { CLUSTER_ENV } from '../harness/cluster-env.ts';
import { kubeClients } from '../harness/kube.ts';
import { startLoadDriver, type LoadDriver } from '../harness/load-driver.ts';
import { startLocalControlPlane } from '../harness/local-control-plane.ts';
import { installTandemCrds } from '../harness/manifests.ts';
import type { AppProcess } from '../harness/app-process.ts';
import {
  startRecommender,
  type RecommenderProcess,
} from '../harness/recommender-process.ts';
import { waitFor } from '../harness/wait.ts';
import {
  startWebhook,
  webhookCertificates,
} from '../harness/webhook-process.ts';
import { createDeployment } from '../harness/workloads.ts';
import { demoLoad } from './load-profile.ts';

const NAMESPACE = 'tandem-demo';
const APP = 'demo-web';
const LOAD_INTERVAL_MS = 10_000;

const controlPlane = await startLocalControlPlane();
// Filled in as the apps start, so a Ctrl-C during set-up stops what is already running.
const apps: {
  recommender?: RecommenderProcess;
  webhook?: AppProcess;
  load?: LoadDriver;
} = {};
let stopping = false;
async function shutDown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(
    `\n${signal}: stopping the demo and the control plane...\n`,
  );
  await Promise.all([
    apps.load?.stop(),
    apps.recommender?.stop(),
    apps.webhook?.stop(),
  ]);
  await controlPlane.stop();
  process.stdout.write('stopped; nothing left running.\n');
  process.exit(0);
}
process.on('SIGINT', () => void shutDown('SIGINT'));
process.on('SIGTERM', () => void shutDown('SIGTERM'));

process.env[CLUSTER_ENV.kubeconfig] = controlPlane.kubeconfig;
// Tandem's apps log next to the control plane's components.
process.env[CLUSTER_ENV.logDir] = controlPlane.logDir;
const kube = kubeClients();
await installTandemCrds(kube);

// The admission webhook first, so every demo pod passes through it: it records what the
// pod declared (tandem.dev/original-resources) and applies the VPA's recommendation.
const webhook = await startWebhook({
  kubeconfig: controlPlane.kubeconfig,
  certificates: await webhookCertificates(),
  extraArgs: ['--ignored-vpa-object-namespaces=kube-system'],
});
apps.webhook = webhook;
await waitFor('the admission webhook to register itself', async () =>
  webhook.entries().some((entry) => entry.msg === 'webhook registered')
    ? true
    : undefined,
);
await kube.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
await createDeployment(kube, NAMESPACE, {
  name: APP,
  replicas: 2,
  cpuRequest: '200m',
  memoryRequest: '256Mi',
});
// The load is the workload's total, split over its pods as they come and go: the HPA's
// scaling lowers each pod's usage, as it would under real traffic.
apps.load = await startLoadDriver(kube, NAMESPACE, `app=${APP}`, demoLoad(), {
  intervalMs: LOAD_INTERVAL_MS,
  onError: (error) => {
    if (!stopping)
      process.stderr.write(
        `load update skipped: ${(error as Error).message}\n`,
      );
  },
});
await kube.autoscaling.createNamespacedHorizontalPodAutoscaler({
  namespace: NAMESPACE,
  body: {
    metadata: { name: APP },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: APP },
      minReplicas: 1,
      maxReplicas: 6,
      metrics: [
        {
          type: 'Resource',
          resource: {
            name: 'cpu',
            target: { type: 'Utilization', averageUtilization: 60 },
          },
        },
      ],
    },
  },
});

// The VPA the recommender fills in (see its status after the first cycles).
await kube.customObjects.createNamespacedCustomObject({
  group: 'autoscaling.k8s.io',
  version: 'v1',
  namespace: NAMESPACE,
  plural: 'verticalpodautoscalers',
  body: {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: { name: APP },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: APP },
      updatePolicy: { updateMode: 'InPlaceOrRecreate' },
    },
  },
});

const recommender = await startRecommender({
  kubeconfig: controlPlane.kubeconfig,
  intervalSeconds: 10,
});
apps.recommender = recommender;

// Until the updater lands, the demo restarts its pods once, after the first recommendation,
// so the webhook gives the new pods the recommended requests.
void restartOnFirstRecommendation();

const kubectl = controlPlane.env.get('TANDEM_CP_KUBECTL') ?? 'kubectl';
process.stdout.write(`
Tandem demo is running (Ctrl-C stops it and cleans up).

  export KUBECONFIG=${controlPlane.kubeconfig}
  ${kubectl} get vpa,hpa,pods -n ${NAMESPACE} -w
  ${kubectl} top pods -n ${NAMESPACE}

Running: the control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
kwok, metrics-server) and the demo Deployment ${NAMESPACE}/${APP} with a VPA and a native HPA (60 % CPU),
under a total load that swings between 100m and 500m every five minutes, split over the
ready pods: the HPA follows it between 1 and 5 replicas.
Tandem's recommender (10 s cycles; ops server ${recommender.url}) and admission webhook
(${webhook.url}) run as host processes, logs in ${controlPlane.logDir}. Once the VPA has a
recommendation the demo restarts its pods once: the new pods carry the recommended requests
and, in tandem.dev/original-resources, what the Deployment declared:
  ${kubectl} get pods -n ${NAMESPACE} -o jsonpath='{range .items[*]}{.spec.containers[0].resources.requests}{"  "}{.metadata.annotations.tandem\\.dev/original-resources}{"\n"}{end}'
The updater and metrics adapter join here as they land.
`);
process.stdout.write('demo ready\n');

async function restartOnFirstRecommendation(): Promise<void> {
  try {
    await waitFor(
      'the demo VPA to get a recommendation',
      async () => {
        const vpa = (await kube.customObjects.getNamespacedCustomObject({
          group: 'autoscaling.k8s.io',
          version: 'v1',
          namespace: NAMESPACE,
          plural: 'verticalpodautoscalers',
          name: APP,
        })) as { status?: { recommendation?: unknown } };
        return vpa.status?.recommendation;
      },
      { timeoutMs: 600_000, intervalMs: 2000 },
    );
    await kube.apps.patchNamespacedDeployment({
      namespace: NAMESPACE,
      name: APP,
      body: [
        {
          op: 'add',
          path: '/spec/template/metadata/annotations/tandem.dev~1restarted-at',
          value: new Date().toISOString(),
        },
      ],
    });
    process.stdout.write(
      'first recommendation written: pods restarted through the admission webhook\n',
    );
  } catch (error) {
    if (!stopping)
      process.stderr.write(
        `demo restart skipped: ${(error as Error).message}\n`,
      );
  }
}
