import type {
  ContainerResourcePolicy,
  EvictionRequirement,
  OwnerReference,
  RecommendedContainerResources,
  ResourceList,
  ResourceRequirements,
  UpdateMode,
  VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import type {
  PodCondition,
  UpdaterContainer,
  UpdaterContainerStatus,
  UpdaterPod,
} from './updater-pod.js';

export const NOW = new Date('2026-03-01T12:00:00Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** `NOW` shifted by `offsetMs`, as RFC 3339. */
export function at(offsetMs: number): string {
  return new Date(NOW.getTime() + offsetMs).toISOString();
}

export function container(
  name: string,
  requests?: ResourceList,
  limits?: ResourceList,
): UpdaterContainer {
  return {
    name,
    resources: { ...(requests && { requests }), ...(limits && { limits }) },
  };
}

export interface PodOptions {
  name?: string;
  namespace?: string;
  uid?: string;
  phase?: string;
  /** Default: started a day before `NOW`. */
  startTime?: string;
  annotations?: Record<string, string>;
  owner?: Pick<OwnerReference, 'kind' | 'name'> | null;
  conditions?: PodCondition[];
  containerStatuses?: UpdaterContainerStatus[];
  nodeName?: string;
  /** Pod-level `spec.resources`. */
  resources?: ResourceRequirements;
}

/** A scheduled, running pod owned by ReplicaSet `web-1`, unless told otherwise. */
export function podWith(
  containers: UpdaterContainer[],
  options: PodOptions = {},
): UpdaterPod {
  const name = options.name ?? 'web-1-abcde';
  const owner =
    options.owner === undefined
      ? { kind: 'ReplicaSet', name: 'web-1' }
      : options.owner;
  return {
    metadata: {
      name,
      namespace: options.namespace ?? 'demo',
      uid: options.uid ?? `uid-${name}`,
      ...(options.annotations && { annotations: options.annotations }),
      ...(owner && {
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            uid: 'owner-uid',
            controller: true,
            ...owner,
          },
        ],
      }),
    },
    spec: {
      containers,
      nodeName: options.nodeName ?? 'node-a',
      ...(options.resources && { resources: options.resources }),
    },
    status: {
      phase: options.phase ?? 'Running',
      startTime: options.startTime ?? at(-24 * HOUR),
      ...(options.conditions && { conditions: options.conditions }),
      ...(options.containerStatuses && {
        containerStatuses: options.containerStatuses,
      }),
    },
  };
}

export function entry(
  containerName: string,
  target: ResourceList,
  bounds: { lowerBound?: ResourceList; upperBound?: ResourceList } = {},
): RecommendedContainerResources {
  return { containerName, target, ...bounds };
}

export interface VpaOptions {
  mode?: UpdateMode;
  policies?: ContainerResourcePolicy[];
  minReplicas?: number;
  evictionRequirements?: EvictionRequirement[];
  evictAfterOOMSeconds?: number;
  /** Without `updatePolicy` at all (the webhook normally adds one). */
  noUpdatePolicy?: boolean;
  annotations?: Record<string, string>;
}

export function vpaWith(
  recommendations: RecommendedContainerResources[] | undefined,
  options: VpaOptions = {},
): VerticalPodAutoscaler {
  return {
    metadata: {
      name: 'web',
      namespace: 'demo',
      ...(options.annotations && { annotations: options.annotations }),
    },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      ...(!options.noUpdatePolicy && {
        updatePolicy: {
          updateMode: options.mode ?? 'Recreate',
          ...(options.minReplicas !== undefined && {
            minReplicas: options.minReplicas,
          }),
          ...(options.evictionRequirements && {
            evictionRequirements: options.evictionRequirements,
          }),
          ...(options.evictAfterOOMSeconds !== undefined && {
            evictAfterOOMSeconds: options.evictAfterOOMSeconds,
          }),
        },
      }),
      ...(options.policies && {
        resourcePolicy: { containerPolicies: options.policies },
      }),
    },
    ...(recommendations && {
      status: { recommendation: { containerRecommendations: recommendations } },
    }),
  };
}

/** `count` running replicas of one owner, named `<owner>-<i>`. */
export function replicas(
  count: number,
  options: PodOptions & { owner?: Pick<OwnerReference, 'kind' | 'name'> } = {},
): UpdaterPod[] {
  const owner = options.owner ?? { kind: 'ReplicaSet', name: 'web-1' };
  return Array.from({ length: count }, (_, index) =>
    podWith([container('app', { cpu: '1' })], {
      ...options,
      owner,
      name: `${owner.name}-${index}`,
    }),
  );
}

export function resizeCondition(
  type: 'PodResizePending' | 'PodResizeInProgress',
  fields: Partial<PodCondition> = {},
): PodCondition {
  return { type, status: 'True', ...fields };
}
