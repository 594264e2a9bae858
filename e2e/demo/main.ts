// `npm start`: the main job. Starts the local control plane, every Tandem app that exists,
// and a demo workload under simulated varying load; prints what to watch; runs until
// Ctrl-C, then stops everything it started.
import {
  startMetricsAdapter,
  type MetricsAdapter,
} from '../harness/adapter-process.ts';
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
import {
  startWebhook,
  waitForRegistration,
  webhookCertificates,
} from '../harness/webhook-process.ts';
import {
  startUpdater,
  type UpdaterProcess,
} from '../harness/updater-process.ts';
import { createDeployment } from '../harness/workloads.ts';
import { startDashboard } from '../harness/dashboard-process.ts';
import { demoLoad } from './load-profile.ts';

const NAMESPACE = 'tandem-demo';
/** The headline pair: the same workload, scaled by a native HPA and by Tandem's metric. */
const WORKLOADS = ['native', 'tandem'] as const;
/**
 * Both HPAs aim at 40 % of the 400m each pod declares (160m a pod): the load then needs 1 to
 * 4 replicas over its cycle, and the VPA, which sizes requests to usage, lowers the request
 * to about half, which is what sends the native HPA astray.
 */
const HPA_TARGET_PERCENT = 40;
const LOAD_INTERVAL_MS = 10_000;

const controlPlane = await startLocalControlPlane();
// Filled in as the apps start, so a Ctrl-C during set-up stops what is already running.
const apps: {
  recommender?: RecommenderProcess;
  updater?: UpdaterProcess;
  webhook?: AppProcess;
  adapter?: MetricsAdapter;
  dashboard?: AppProcess;
  loads: LoadDriver[];
} = { loads: [] };
let stopping = false;
async function shutDown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(
    `\n${signal}: stopping the demo and the control plane...\n`,
  );
  await Promise.all([
    ...apps.loads.map((load) => load.stop()),
    apps.recommender?.stop(),
    apps.updater?.stop(),
    apps.webhook?.stop(),
    apps.adapter?.stop(),
    apps.dashboard?.stop(),
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

// The admission webhook first, so every demo pod passes through it: on a pod a VPA controls
// it records what the pod declared (tandem.dev/original-resources) and applies the VPA's
// recommendation.
const webhook = await startWebhook({
  kubeconfig: controlPlane.kubeconfig,
  certificates: await webhookCertificates(),
  extraArgs: ['--ignored-vpa-object-namespaces=kube-system'],
});
apps.webhook = webhook;
await waitForRegistration(webhook);
await kube.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });

// The metrics adapter serves custom.metrics.k8s.io through the aggregation layer.
apps.adapter = await startMetricsAdapter(kube, controlPlane.kubeconfig);

// The headline pair: two identical Deployments under the same varying total load, each
// with a VPA and an HPA. `native` scales on the Resource cpu utilization (usage / current
// request), `tandem` on cpu_utilization_of_original_request (usage / declared request).
for (const name of WORKLOADS) {
  await createDeployment(kube, NAMESPACE, {
    name,
    replicas: 2,
    cpuRequest: '400m',
    memoryRequest: '256Mi',
    cpuLimit: '800m',
    memoryLimit: '512Mi',
  });
  // The load is the workload's total, split over its pods as they come and go: the HPA's
  // scaling lowers each pod's usage, as it would under real traffic.
  apps.loads.push(
    await startLoadDriver(kube, NAMESPACE, `app=${name}`, demoLoad(), {
      intervalMs: LOAD_INTERVAL_MS,
      onError: (error) => {
        if (!stopping)
          process.stderr.write(
            `load update skipped: ${(error as Error).message}\n`,
          );
      },
    }),
  );
  await kube.customObjects.createNamespacedCustomObject({
    group: 'autoscaling.k8s.io',
    version: 'v1',
    namespace: NAMESPACE,
    plural: 'verticalpodautoscalers',
    body: {
      apiVersion: 'autoscaling.k8s.io/v1',
      kind: 'VerticalPodAutoscaler',
      metadata: { name },
      spec: {
        targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        updatePolicy: { updateMode: 'Recreate' },
      },
    },
  });
  await kube.autoscaling.createNamespacedHorizontalPodAutoscaler({
    namespace: NAMESPACE,
    body: {
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
        minReplicas: 1,
        maxReplicas: 10,
        metrics: [
          name === 'native'
            ? {
                type: 'Resource',
                resource: {
                  name: 'cpu',
                  target: {
                    type: 'Utilization',
                    averageUtilization: HPA_TARGET_PERCENT,
                  },
                },
              }
            : {
                type: 'Pods',
                pods: {
                  metric: { name: 'cpu_utilization_of_original_request' },
                  target: {
                    type: 'AverageValue',
                    averageValue: String(HPA_TARGET_PERCENT),
                  },
                },
              },
        ],
      },
    },
  });
}

const recommender = await startRecommender({
  kubeconfig: controlPlane.kubeconfig,
  intervalSeconds: 10,
});
apps.recommender = recommender;

// The updater evicts pods whose requests stray from the recommendation, one replica at a
// time, and the webhook gives their replacements the recommended requests. Upstream waits
// 12 hours before it replaces a pod whose requests are merely within the recommended range;
// the demo shortens that to a minute, and lets a workload the HPA shrank to one pod be
// updated too. Like the recommender and the webhook it serves every namespace but
// kube-system, so a workload a user adds anywhere to try Tandem is updated as well.
apps.updater = await startUpdater({
  kubeconfig: controlPlane.kubeconfig,
  intervalSeconds: 10,
  extraArgs: [
    '--ignored-vpa-object-namespaces=kube-system',
    '--in-recommendation-bounds-eviction-lifetime-threshold=1m',
    '--min-replicas=1',
  ],
});

// The dashboard: both workloads side by side, and what a native HPA would run for each.
apps.dashboard = await startDashboard({
  kubeconfig: controlPlane.kubeconfig,
});

const kubectl = controlPlane.env.get('TANDEM_CP_KUBECTL') ?? 'kubectl';
process.stdout.write(`
Tandem demo is running (Ctrl-C stops it and cleans up).

  export KUBECONFIG=${controlPlane.kubeconfig}
  ${kubectl} get hpa,vpa -n ${NAMESPACE} -w
  dashboard: ${apps.dashboard.url}

Two identical Deployments, native and tandem (400m CPU requested each pod), share the same
total load, swinging between 100m and 500m every five minutes; each has a VPA and an HPA at
${HPA_TARGET_PERCENT} %. Once the recommender has written the VPAs' recommendations (a minute or two) the
updater evicts the pods one by one and the admission webhook gives their replacements the
recommended, lower, requests.
Then watch the hpa lines: native's TARGETS jumps well above ${HPA_TARGET_PERCENT} % and its REPLICAS climb for
the same load, because it divides by the lowered request; tandem's TARGETS stays where the
load puts it, because the metrics adapter divides by the request the Deployment declared
(each pod keeps it in tandem.dev/original-resources).

Running: the control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
kwok, metrics-server) and, as host processes, Tandem's recommender and updater (10 s cycles),
admission webhook (${webhook.url}), metrics adapter (${apps.adapter.url}) and dashboard; logs in
${controlPlane.logDir}.
`);
process.stdout.write('demo ready\n');
