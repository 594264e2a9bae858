import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import {
  clusterKubeconfig,
  isInstalledPlatform,
  isLocalCluster,
} from './cluster-env.ts';
import type { KubeClients } from './kube.ts';
import { startMetricsAdapter, type MetricsAdapter } from './adapter-process.ts';
import { startRecommender } from './recommender-process.ts';
import { startUpdater } from './updater-process.ts';
import { waitFor } from './wait.ts';
import {
  deleteWebhookConfiguration,
  startWebhook,
  waitForRegistration,
  webhookCertificates,
} from './webhook-process.ts';

/** A Tandem app a test relies on, however it runs. */
export interface RunningApp {
  /** Its last log lines, for failure messages. */
  tail(lines?: number): Promise<string>;
  /** Ends what the test asked of it: stops the process, or restores the installed flags. */
  stop(): Promise<void>;
}

/**
 * The platform's apps as a test needs them, on either kind of cluster: on the local
 * control plane each is a host process started now; where the platform is installed
 * (`kubectl apply -k deploy/`, e2e/kind/platform.sh) each is its Deployment in
 * tandem-system, reconfigured with the test's flags for the test's duration, as a user
 * would with a kustomize patch.
 */
export interface PlatformApps {
  /** The admission webhook, serving and registered with the API server. */
  webhook(): Promise<RunningApp>;
  recommender(intervalSeconds: number): Promise<RunningApp>;
  updater(intervalSeconds: number, extraArgs?: string[]): Promise<RunningApp>;
  /**
   * The metrics adapter behind `custom.metrics.k8s.io`'s APIServices, Available; as a host
   * process, `hostProcess` also gives its own URL for requests that bypass the aggregator.
   */
  metricsAdapter(): Promise<RunningApp & { hostProcess?: MetricsAdapter }>;
  /** Stops every app these gave and has not stopped yet: for afterEach/afterAll. */
  stopAll(): Promise<void>;
}

/** True where `platformApps` can serve: the local control plane, or an installed platform. */
export function platformAppsAvailable(): boolean {
  return isLocalCluster() || isInstalledPlatform();
}

export function platformApps(kube: KubeClients): PlatformApps {
  const apps = isInstalledPlatform()
    ? installedApps(kube)
    : hostProcessApps(kube);
  const running = new Set<RunningApp>();
  const tracked =
    <Args extends unknown[], App extends RunningApp>(
      start: (...args: Args) => Promise<App>,
    ) =>
    async (...args: Args): Promise<App> => {
      const app = await start(...args);
      running.add(app);
      return {
        ...app,
        async stop() {
          if (!running.delete(app)) return;
          await app.stop();
        },
      };
    };
  return {
    webhook: tracked(apps.webhook),
    recommender: tracked(apps.recommender),
    updater: tracked(apps.updater),
    metricsAdapter: tracked(apps.metricsAdapter),
    async stopAll() {
      const started = [...running];
      running.clear();
      // Last started first: the updater before the recommender before the webhook.
      for (const app of started.reverse()) await app.stop();
    },
  };
}

function hostProcessApps(kube: KubeClients): Omit<PlatformApps, 'stopAll'> {
  const kubeconfig = clusterKubeconfig();
  return {
    async webhook() {
      const webhook = await startWebhook({
        kubeconfig,
        certificates: await webhookCertificates(),
        extraArgs: ['--ignored-vpa-object-namespaces=kube-system'],
      });
      await waitForRegistration(webhook);
      return {
        tail: async (lines) => webhook.tail(lines),
        async stop() {
          await webhook.stop();
          await deleteWebhookConfiguration(kube);
        },
      };
    },
    async recommender(intervalSeconds) {
      const recommender = await startRecommender({
        kubeconfig,
        intervalSeconds,
      });
      return {
        tail: async (lines) => recommender.tail(lines),
        stop: async () => void (await recommender.stop()),
      };
    },
    async updater(intervalSeconds, extraArgs = []) {
      const updater = await startUpdater({
        kubeconfig,
        intervalSeconds,
        extraArgs,
      });
      return {
        tail: async (lines) => updater.tail(lines),
        stop: async () => void (await updater.stop()),
      };
    },
    async metricsAdapter() {
      const adapter = await startMetricsAdapter(kube, kubeconfig);
      return {
        hostProcess: adapter,
        tail: async (lines) => adapter.process.tail(lines),
        stop: () => adapter.stop(),
      };
    },
  };
}

/** Where deploy/ installs the platform, and how its Deployments are named. */
export const PLATFORM_NAMESPACE = 'tandem-system';
export const deploymentOf = (app: string) => `tandem-${app}`;

function installedApps(kube: KubeClients): Omit<PlatformApps, 'stopAll'> {
  return {
    async webhook() {
      await waitForRollout(kube, deploymentOf('admission-webhook'));
      return installedApp(kube, 'admission-webhook', undefined);
    },
    recommender: (intervalSeconds) =>
      reconfigured(kube, 'recommender', [
        `--recommender-interval=${intervalSeconds}s`,
      ]),
    updater: (intervalSeconds, extraArgs = []) =>
      reconfigured(
        kube,
        'updater',
        [`--updater-interval=${intervalSeconds}s`, ...extraArgs],
        // The updater refuses both (as upstream's does): one namespace replaces the
        // installed list of ignored ones.
        extraArgs.some((arg) => flagName(arg) === '--vpa-object-namespace')
          ? ['--ignored-vpa-object-namespaces']
          : [],
      ),
    async metricsAdapter() {
      await waitForRollout(kube, deploymentOf('metrics-adapter'));
      return installedApp(kube, 'metrics-adapter', undefined);
    },
  };
}

function installedApp(
  kube: KubeClients,
  app: string,
  restore: string[] | undefined,
): RunningApp {
  return {
    tail: (lines = 15) => installedLogs(kube, app, lines),
    async stop() {
      if (restore === undefined) return;
      await setArgs(kube, deploymentOf(app), restore);
    },
  };
}

/**
 * The Deployment's app runs with `flags` added (replacing its own values of them) and
 * without the flags named in `dropped`. A rollout that does not complete is undone
 * before the error is thrown, so that no test leaves the platform reconfigured.
 */
async function reconfigured(
  kube: KubeClients,
  app: string,
  flags: string[],
  dropped: string[] = [],
): Promise<RunningApp> {
  const deployment = await kube.apps.readNamespacedDeployment({
    namespace: PLATFORM_NAMESPACE,
    name: deploymentOf(app),
  });
  const installed = deployment.spec?.template.spec?.containers[0]?.args ?? [];
  const names = new Set([...flags.map(flagName), ...dropped]);
  try {
    await setArgs(kube, deploymentOf(app), [
      ...installed.filter((arg) => !names.has(flagName(arg))),
      ...flags,
    ]);
  } catch (error) {
    const logs = await installedLogs(kube, app, 5);
    await setArgs(kube, deploymentOf(app), installed);
    throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
  }
  return installedApp(kube, app, installed);
}

const flagName = (arg: string) => arg.split('=')[0];

async function setArgs(
  kube: KubeClients,
  name: string,
  args: string[],
): Promise<void> {
  await kube.apps.patchNamespacedDeployment({
    namespace: PLATFORM_NAMESPACE,
    name,
    body: [
      {
        op: 'replace',
        path: '/spec/template/spec/containers/0/args',
        value: args,
      },
    ],
  });
  await waitForRollout(kube, name);
}

/** Every replica runs the Deployment's current template, and no old pod is left. */
async function waitForRollout(kube: KubeClients, name: string): Promise<void> {
  let last: V1Deployment | undefined;
  await waitFor(
    `the rollout of ${PLATFORM_NAMESPACE}/${name}`,
    async () => {
      last = await kube.apps.readNamespacedDeployment({
        namespace: PLATFORM_NAMESPACE,
        name,
      });
      const wanted = last.spec?.replicas ?? 1;
      const status = last.status;
      return (status?.observedGeneration ?? 0) >=
        (last.metadata?.generation ?? 1) &&
        status?.updatedReplicas === wanted &&
        status.availableReplicas === wanted &&
        status.replicas === wanted
        ? true
        : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 1000 },
    async () => JSON.stringify(last?.status),
  );
}

/** The pods of the installed app's Deployment, terminating ones included. */
export async function installedPods(
  kube: KubeClients,
  app: string,
): Promise<V1Pod[]> {
  const pods = await kube.core.listNamespacedPod({
    namespace: PLATFORM_NAMESPACE,
    labelSelector: `app.kubernetes.io/name=${deploymentOf(app)}`,
  });
  return pods.items;
}

/** The last lines each pod of the installed app logged, each pod's under its name. */
export async function installedLogs(
  kube: KubeClients,
  app: string,
  lines: number,
): Promise<string> {
  const logs = await Promise.all(
    (await installedPods(kube, app)).map(async (pod) => {
      const name = pod.metadata?.name ?? '';
      const text = await kube.core
        .readNamespacedPodLog({
          namespace: PLATFORM_NAMESPACE,
          name,
          container: pod.spec?.containers[0]?.name,
          tailLines: lines,
        })
        .catch((error: unknown) => `(no log: ${String(error)})`);
      return `${name}:\n${text}`;
    }),
  );
  return logs.join('\n') || `no pods of ${deploymentOf(app)}`;
}
