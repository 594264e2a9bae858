import type { KubernetesObject } from '@kubernetes/client-node';
import {
  podAt,
  podIndexesOf,
  replicaSetAt,
  type ClusterShape,
} from './realistic-cluster.js';

/**
 * What a dashboard reads of each workload of a stand-in cluster, made on demand from the
 * workload's index as `realistic-cluster.ts` makes its pods: the Deployment that owns
 * ReplicaSet `index`, a VPA in Recreate mode with a recommendation for both containers,
 * an HPA on Tandem's utilization metric, and metrics.k8s.io's usage of its pods.
 */

const CREATED = '2026-11-02T08:14:03Z';

const meta = (shape: ClusterShape, index: number) => {
  const rs = replicaSetAt(shape, index);
  const owner = rs.metadata?.ownerReferences?.[0];
  return {
    namespace: rs.metadata?.namespace ?? '',
    name: owner?.name ?? '',
    uid: owner?.uid ?? '',
    rs,
  };
};

export function deploymentAt(
  shape: ClusterShape,
  index: number,
): KubernetesObject {
  const { namespace, name, uid, rs } = meta(shape, index);
  const replicas = rs.spec?.replicas ?? 0;
  // The ReplicaSet's selector less the hash its Deployment adds to each template.
  const selector = Object.fromEntries(
    Object.entries(rs.spec?.selector.matchLabels ?? {}).filter(
      ([label]) => label !== 'pod-template-hash',
    ),
  );
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace,
      uid,
      resourceVersion: String(40_000 + index),
      creationTimestamp: new Date(CREATED),
    },
    spec: {
      replicas,
      selector: { matchLabels: selector },
      template: rs.spec?.template,
    },
    status: { replicas, readyReplicas: replicas, availableReplicas: replicas },
  } as KubernetesObject;
}

const recommendation = (cpuMillicores: number) => ({
  containerRecommendations: ['app', 'sidecar'].map((containerName) => ({
    containerName,
    target: { cpu: `${cpuMillicores}m`, memory: '300Mi' },
    lowerBound: { cpu: `${cpuMillicores - 50}m`, memory: '250Mi' },
    upperBound: { cpu: `${cpuMillicores * 4}m`, memory: '900Mi' },
    uncappedTarget: { cpu: `${cpuMillicores}m`, memory: '300Mi' },
  })),
});

export function vpaAt(shape: ClusterShape, index: number): KubernetesObject {
  const { namespace, name } = meta(shape, index);
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: {
      name,
      namespace,
      uid: `vpa-${index}`,
      resourceVersion: String(60_000 + index),
    },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      updatePolicy: { updateMode: 'Recreate' },
    },
    status: { recommendation: recommendation(150 + (index % 50)) },
  } as KubernetesObject;
}

export function hpaAt(shape: ClusterShape, index: number): KubernetesObject {
  const { namespace, name, rs } = meta(shape, index);
  const replicas = rs.spec?.replicas ?? 0;
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name,
      namespace,
      uid: `hpa-${index}`,
      resourceVersion: String(70_000 + index),
    },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [
        {
          type: 'Pods',
          pods: {
            metric: { name: 'cpu_utilization_of_original_request' },
            target: { type: 'AverageValue', averageValue: '40' },
          },
        },
      ],
    },
    status: {
      currentReplicas: replicas,
      desiredReplicas: replicas,
      currentMetrics: [
        {
          type: 'Pods',
          pods: {
            metric: { name: 'cpu_utilization_of_original_request' },
            current: { averageValue: '38' },
          },
        },
      ],
    },
  } as KubernetesObject;
}

/** metrics.k8s.io's PodMetricsList of one namespace: every pod of its workloads, both containers. */
export function podMetricsOf(
  shape: ClusterShape,
  namespace: string,
): Record<string, unknown> {
  const items = podIndexesOf(shape, namespace).map((index) => {
    const pod = podAt(shape, index);
    return {
      metadata: {
        name: pod.metadata?.name,
        namespace,
        labels: pod.metadata?.labels,
      },
      timestamp: '2026-11-27T08:00:00Z',
      window: '15s',
      containers: [
        {
          name: 'app',
          usage: { cpu: `${120 + (index % 60)}m`, memory: '200Mi' },
        },
        { name: 'sidecar', usage: { cpu: '8m', memory: '24Mi' } },
      ],
    };
  });
  return {
    kind: 'PodMetricsList',
    apiVersion: 'metrics.k8s.io/v1beta1',
    metadata: {},
    items,
  };
}
