import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { V1Container, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { clusterKubeconfig } from './cluster-env.ts';
import type { KubeClients } from './kube.ts';
import { createDeploymentOfPods, waitForRunningPods } from './workloads.ts';

// Pods on kind's real node (the installed platform's suites): a kubelet runs them, so
// their allocated resources and their cgroups are there to read.

const run = promisify(execFile);

/** Built by e2e/kind/run.sh from e2e/kind/cpu-burner and loaded into the cluster. */
export const BURNER_IMAGE = 'tandem/cpu-burner:1';
/** The installed updater runs upstream's default interval (1 min); a resize takes one. */
export const UPDATER_CYCLE_MS = 60_000;

/**
 * A Deployment of real pods on kind's node whose container `app` runs the burner (never
 * pulled: the image is loaded); `podSpec` adds to the pod (e.g. init containers).
 */
export async function createRealDeployment(
  kube: KubeClients,
  namespace: string,
  name: string,
  replicas: number,
  container: Omit<V1Container, 'name' | 'image'>,
  podSpec: Omit<V1PodSpec, 'containers'> = {},
): Promise<V1Pod[]> {
  await createDeploymentOfPods(kube, namespace, name, replicas, {
    terminationGracePeriodSeconds: 1,
    ...podSpec,
    containers: [
      {
        name: 'app',
        image: BURNER_IMAGE,
        imagePullPolicy: 'Never',
        ...container,
      },
    ],
  });
  return waitForRunningPods(kube, namespace, name, replicas, 120_000);
}

export async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', args, {
    env: { ...process.env, KUBECONFIG: clusterKubeconfig() },
  });
  return stdout.trim();
}

export interface CpuCgroup {
  quota: number;
  sharesOrWeight: number;
  version: 1 | 2;
}

/**
 * The container's CPU cgroup as the kernel holds it, read from inside the container:
 * the CFS quota (from the limit) and the shares (v1) or weight (v2, from the request).
 */
export async function cpuCgroupOf(
  namespace: string,
  pod: string,
  container = 'app',
): Promise<CpuCgroup> {
  const script = [
    'if [ -f /sys/fs/cgroup/cpu.max ]; then',
    '  echo 2; cut -d" " -f1 /sys/fs/cgroup/cpu.max; cat /sys/fs/cgroup/cpu.weight;',
    'else',
    '  echo 1; cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.shares;',
    'fi',
  ].join(' ');
  const [version, quota, sharesOrWeight] = (
    await kubectl(
      '-n',
      namespace,
      'exec',
      pod,
      '-c',
      container,
      '--',
      'sh',
      '-c',
      script,
    )
  ).split(/\s+/);
  return {
    version: version === '2' ? 2 : 1,
    quota: Number(quota),
    sharesOrWeight: Number(sharesOrWeight),
  };
}

/** What the kubelet writes for a CPU request: shares on v1, their weight on v2. */
function expectedSharesOrWeight(millicores: number, version: 1 | 2): number {
  const shares = Math.floor((millicores * 1024) / 1000);
  return version === 1
    ? shares
    : 1 + Math.floor(((shares - 2) * 9999) / 262142);
}

/** The cgroup the kubelet writes for a CPU request and limit (the quota per 100 ms period). */
export function expectedCgroup(
  requestMillicores: number,
  limitMillicores: number,
  version: 1 | 2,
): CpuCgroup {
  return {
    version,
    quota: limitMillicores * 100,
    sharesOrWeight: expectedSharesOrWeight(requestMillicores, version),
  };
}

/** The pod's identity, each container's declared and allocated resources, for messages. */
export function describePod(pod: V1Pod | undefined): string {
  if (pod === undefined) return 'no pod';
  const statuses = [
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.containerStatuses ?? []),
  ];
  return JSON.stringify({
    name: pod.metadata?.name,
    uid: pod.metadata?.uid,
    annotations: pod.metadata?.annotations,
    containers: [
      ...(pod.spec?.initContainers ?? []),
      ...(pod.spec?.containers ?? []),
    ].map((container) => {
      const status = statuses.find((entry) => entry.name === container.name);
      return {
        name: container.name,
        spec: container.resources,
        allocated: status?.resources,
        restarts: status?.restartCount,
      };
    }),
    conditions: pod.status?.conditions?.map(
      (condition) =>
        `${condition.type}=${condition.status}:${condition.reason ?? ''}`,
    ),
  });
}
