import type { V1Deployment, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import type { KubeClients } from './kube.ts';
import { waitFor } from './wait.ts';

export interface DeploymentSpec {
  name: string;
  replicas: number;
  cpuRequest: string;
  memoryRequest: string;
  /** Limits, when the container declares them. */
  cpuLimit?: string;
  memoryLimit?: string;
  /** Simulated usage every new pod starts with (kwok's usage annotations). */
  initialUsage?: { cpu: string; memory: string };
}

/**
 * Where the suites' simulated pods go: kwok's fake nodes (label `type=kwok`). On kind
 * those nodes carry the taint `kwok.x-k8s.io/node=fake:NoSchedule`, so that the
 * platform's own pods stay on the real node; where nothing taints them (the local
 * control plane) the toleration changes nothing.
 */
export const ON_FAKE_NODES = {
  nodeSelector: { type: 'kwok' },
  tolerations: [
    {
      key: 'kwok.x-k8s.io/node',
      operator: 'Exists',
      effect: 'NoSchedule',
    },
  ],
} satisfies Pick<V1PodSpec, 'nodeSelector' | 'tolerations'>;

/** A Deployment of `replicas` pods of `podSpec`, labelled and selected by `app=<name>`. */
export async function createDeploymentOfPods(
  kube: KubeClients,
  namespace: string,
  name: string,
  replicas: number,
  podSpec: V1PodSpec,
  podAnnotations?: Record<string, string>,
): Promise<V1Deployment> {
  const labels = { app: name };
  return kube.apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name, labels },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels, annotations: podAnnotations },
          spec: podSpec,
        },
      },
    },
  });
}

/** A one-container Deployment whose pods kwok runs on its fake nodes. */
export async function createDeployment(
  kube: KubeClients,
  namespace: string,
  spec: DeploymentSpec,
): Promise<V1Deployment> {
  const annotations =
    spec.initialUsage === undefined
      ? undefined
      : {
          'kwok.x-k8s.io/usage-cpu': spec.initialUsage.cpu,
          'kwok.x-k8s.io/usage-memory': spec.initialUsage.memory,
        };
  const limits = {
    ...(spec.cpuLimit !== undefined && { cpu: spec.cpuLimit }),
    ...(spec.memoryLimit !== undefined && { memory: spec.memoryLimit }),
  };
  return createDeploymentOfPods(
    kube,
    namespace,
    spec.name,
    spec.replicas,
    {
      // Fake nodes only: on kind the real node must not try to pull this image.
      ...ON_FAKE_NODES,
      containers: [
        {
          name: 'app',
          image: 'registry.invalid/tandem-demo:1',
          resources: {
            requests: { cpu: spec.cpuRequest, memory: spec.memoryRequest },
            ...(Object.keys(limits).length > 0 && { limits }),
          },
        },
      ],
    },
    annotations,
  );
}

export async function listPods(
  kube: KubeClients,
  namespace: string,
  app: string,
): Promise<V1Pod[]> {
  const list = await kube.core.listNamespacedPod({
    namespace,
    labelSelector: `app=${app}`,
  });
  return list.items.filter(
    (pod) => pod.metadata?.deletionTimestamp === undefined,
  );
}

/** Running, and its Ready condition True. */
export function isRunningAndReady(pod: V1Pod): boolean {
  const ready = pod.status?.conditions?.some(
    (condition) => condition.type === 'Ready' && condition.status === 'True',
  );
  return pod.status?.phase === 'Running' && ready === true;
}

/** Waits until exactly `count` live pods of the app are Running and Ready. */
export async function waitForRunningPods(
  kube: KubeClients,
  namespace: string,
  app: string,
  count: number,
  timeoutMs = 60_000,
): Promise<V1Pod[]> {
  const describe = async () =>
    (await listPods(kube, namespace, app))
      .map(
        (pod) =>
          `${pod.metadata?.name}:${pod.status?.phase}${isRunningAndReady(pod) ? '/ready' : ''}@${pod.spec?.nodeName ?? 'unscheduled'}`,
      )
      .join(', ') || 'no pods';
  return waitFor(
    `${count} running pod(s) of ${namespace}/${app}`,
    async () => {
      const pods = await listPods(kube, namespace, app);
      return pods.length === count && pods.every(isRunningAndReady)
        ? pods
        : undefined;
    },
    { timeoutMs },
    describe,
  );
}

/** Creates the Deployment and waits until all its replicas run: most suites' first step. */
export async function runDeployment(
  kube: KubeClients,
  namespace: string,
  spec: DeploymentSpec,
): Promise<V1Pod[]> {
  await createDeployment(kube, namespace, spec);
  return waitForRunningPods(kube, namespace, spec.name, spec.replicas);
}

/** The CPU request of the pod's first container, as written ('' when none). */
export const cpuRequestOf = (pod: V1Pod): string =>
  pod.spec?.containers[0]?.resources?.requests?.['cpu'] ?? '';
