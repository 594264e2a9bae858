import jsonPatch from 'fast-json-patch';
import type {
  ContainerResourcePolicy,
  FeatureGates,
  LabelSelector,
  LimitRange,
  LimitRangeItem,
  RecommendedContainerResources,
  ResourceList,
  UpdateMode,
  VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import type {
  AdmissionContext,
  AdmissionResult,
  VpaCandidate,
} from './admission-types.js';
import type { AddOperation } from './json-patch.js';

export const POD_RESOURCE = { group: '', version: 'v1', resource: 'pods' };
export const POD_KIND = { group: '', version: 'v1', kind: 'Pod' };
export const VPA_RESOURCE = {
  group: 'autoscaling.k8s.io',
  version: 'v1',
  resource: 'verticalpodautoscalers',
};
export const ORIGINALS = 'tandem.dev/original-resources';

export function review(request: Record<string, unknown>): unknown {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'uid-1', ...request },
  };
}

export function podReview(
  pod: unknown,
  overrides: Record<string, unknown> = {},
): unknown {
  return review({
    operation: 'CREATE',
    namespace: 'demo',
    resource: POD_RESOURCE,
    kind: POD_KIND,
    object: pod,
    ...overrides,
  });
}

export function vpaReview(
  object: unknown,
  operation = 'CREATE',
  oldObject?: unknown,
): unknown {
  return review({
    operation,
    namespace: 'demo',
    name: 'web',
    resource: VPA_RESOURCE,
    kind: {
      group: 'autoscaling.k8s.io',
      version: 'v1',
      kind: 'VerticalPodAutoscaler',
    },
    object,
    ...(oldObject !== undefined && { oldObject }),
  });
}

export interface ContextOptions {
  vpas?: VpaCandidate[];
  /** Default: every pod belongs to the Deployment `web`, which `vpaWith` targets. */
  topMostController?: AdmissionContext['topMostController'];
  limitRanges?: LimitRange[];
  featureGates?: FeatureGates;
}

/** A context over fixed lists, recording the namespaces it was asked about. */
export function contextWith(
  options: ContextOptions = {},
): AdmissionContext & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    vpasInNamespace: (namespace) => {
      asked.push(namespace);
      return Promise.resolve(options.vpas ?? []);
    },
    topMostController:
      options.topMostController ??
      (() => Promise.resolve({ kind: 'Deployment', name: 'web' })),
    limitRanges: () => Promise.resolve(options.limitRanges ?? []),
    featureGates: options.featureGates ?? {},
  };
}

export const webSelector: LabelSelector = { matchLabels: { app: 'web' } };

export interface VpaOptions {
  name?: string;
  created?: string;
  mode?: UpdateMode;
  policies?: ContainerResourcePolicy[];
}

export function vpaWith(
  recommendations: RecommendedContainerResources[] | undefined,
  options: VpaOptions = {},
): VerticalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: {
      name: options.name ?? 'web',
      namespace: 'demo',
      creationTimestamp: options.created ?? '2024-01-01T00:00:00Z',
    },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      ...(options.mode && { updatePolicy: { updateMode: options.mode } }),
      ...(options.policies && {
        resourcePolicy: { containerPolicies: options.policies },
      }),
    },
    ...(recommendations && {
      status: { recommendation: { containerRecommendations: recommendations } },
    }),
  };
}

export function candidate(
  vpa: VerticalPodAutoscaler,
  selector: LabelSelector | undefined = webSelector,
): VpaCandidate {
  return { vpa, selector };
}

export function limitRangeOf(...limits: LimitRangeItem[]): LimitRange {
  return { metadata: { name: 'limits', namespace: 'demo' }, spec: { limits } };
}

export interface RawContainer {
  name: string;
  image?: string;
  restartPolicy?: string;
  resources?: { requests?: ResourceList; limits?: ResourceList };
}

export function containerWith(
  name: string,
  requests?: ResourceList,
  limits?: ResourceList,
): RawContainer {
  return {
    name,
    image: 'nginx',
    resources: { ...(requests && { requests }), ...(limits && { limits }) },
  };
}

/** A pod as a ReplicaSet submits it: generated name, no namespace, no annotations. */
export function podWith(
  containers: RawContainer[],
  extra: {
    initContainers?: RawContainer[];
    annotations?: Record<string, string>;
    /** Pod-level `spec.resources`. */
    resources?: { requests?: ResourceList; limits?: ResourceList };
  } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'web-6d4f-',
      labels: { app: 'web' },
      ...(extra.annotations && { annotations: extra.annotations }),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-6d4f',
          uid: 'rs-uid',
          controller: true,
        },
      ],
    },
    spec: {
      ...(extra.initContainers && { initContainers: extra.initContainers }),
      containers,
      ...(extra.resources && { resources: extra.resources }),
    },
  };
}

/** The operations of the review's patch (empty without one). */
export function patchOf(result: AdmissionResult): AddOperation[] {
  const patch = result.review?.response.patch;
  if (patch === undefined) return [];
  expect(result.review?.response.patchType).toBe('JSONPatch');
  return JSON.parse(
    Buffer.from(patch, 'base64').toString('utf8'),
  ) as AddOperation[];
}

/** The submitted object with the review's patch applied, validating every operation. */
export function patched<T>(object: T, result: AdmissionResult): T {
  return jsonPatch.applyPatch(structuredClone(object), patchOf(result), true)
    .newDocument;
}

/** The pod with annotations added (and nothing else changed). */
export function withAnnotations(
  pod: Record<string, unknown>,
  annotations: Record<string, string>,
): Record<string, unknown> {
  const copy = structuredClone(pod) as {
    metadata: { annotations?: Record<string, string> };
  };
  copy.metadata.annotations = { ...copy.metadata.annotations, ...annotations };
  return copy as unknown as Record<string, unknown>;
}

/** The pod's `spec.containers[index].resources`, for building expected pods. */
export function resourcesOf(
  pod: Record<string, unknown>,
  index: number,
): { requests?: ResourceList; limits?: ResourceList } {
  const spec = pod['spec'] as { containers: RawContainer[] };
  const container = spec.containers[index];
  if (!container) throw new Error(`no container ${index}`);
  container.resources ??= {};
  return container.resources;
}
