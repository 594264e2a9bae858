import type { CycleContext } from '@tandem/recommender-core';
import {
  type VerticalPodAutoscaler,
  VPA_API_VERSION,
  VPA_KIND,
} from '@tandem/vpa-api';
import {
  containerProfiles,
  type ContainerUsageProfile,
  usageAround,
} from './synthetic-usage.js';

type Pod = ReturnType<CycleContext['inputs']['listPods']>[number];
type ContainerUsage = Awaited<
  ReturnType<CycleContext['inputs']['loadMetrics']>
>['usages'][number];

/** Every workload runs an application container and a sidecar, as meshed clusters do. */
const CONTAINERS = ['app', 'sidecar'] as const;

/**
 * A cluster as the recommender lists it: one Deployment per VPA, in namespaces of
 * `workloadsPerNamespace` each; workloads alternate 2 and 3 pods (2.5 on average), each
 * pod running the two containers, so 10,000 workloads give 50,000 containers.
 */
export interface SyntheticCluster {
  vpas: VerticalPodAutoscaler[];
  pods: Pod[];
  /** The usage profile of each pod's containers, in `pods` order then container order. */
  profiles: ContainerUsageProfile[];
}

export function syntheticCluster(
  workloads: number,
  workloadsPerNamespace: number,
  random: () => number,
): SyntheticCluster {
  const vpas: VerticalPodAutoscaler[] = [];
  const pods: Pod[] = [];
  for (let w = 0; w < workloads; w += 1) {
    const namespace = `team-${Math.floor(w / workloadsPerNamespace)}`;
    const name = `workload-${w}`;
    vpas.push(workloadVpa(namespace, name));
    for (let p = 0; p < 2 + (w % 2); p += 1)
      pods.push(podFor(namespace, name, `${name}-${p}`));
  }
  return {
    vpas,
    pods,
    profiles: containerProfiles(pods.length * CONTAINERS.length, random),
  };
}

/** The selector the Deployment of a workload has: the same labels its pods carry. */
export function workloadSelector(vpa: VerticalPodAutoscaler): {
  selector: { matchLabels: Record<string, string> };
} {
  return { selector: { matchLabels: { app: vpa.spec.targetRef.name } } };
}

/** One metrics.k8s.io snapshot at `timeMs`: a sample per container around its profile. */
export function usageSnapshot(
  cluster: SyntheticCluster,
  timeMs: number,
  random: () => number,
): ContainerUsage[] {
  const usages: ContainerUsage[] = [];
  cluster.pods.forEach((pod, p) =>
    CONTAINERS.forEach((container, c) => {
      const profile = cluster.profiles[p * CONTAINERS.length + c];
      if (profile === undefined) return;
      usages.push({
        namespace: pod.metadata?.namespace ?? '',
        pod: pod.metadata?.name ?? '',
        container,
        timeMs,
        ...usageAround(profile, random),
      });
    }),
  );
  return usages;
}

/** A VPA, served by the default recommender, of the Deployment `name`. */
export function workloadVpa(
  namespace: string,
  name: string,
): VerticalPodAutoscaler {
  return {
    apiVersion: VPA_API_VERSION,
    kind: VPA_KIND,
    metadata: { namespace, name, generation: 1 },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
    },
  };
}

function podFor(namespace: string, app: string, name: string): Pod {
  return {
    metadata: {
      namespace,
      name,
      labels: { app, 'pod-template-hash': '5d8f7c9b4' },
    },
    spec: {
      containers: CONTAINERS.map((container) => ({
        name: container,
        image: `registry.example/${container}:1.0`,
        resources: { requests: { cpu: '100m', memory: '128Mi' } },
      })),
    },
    status: { phase: 'Running' },
  };
}
