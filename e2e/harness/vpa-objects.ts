import { httpStatusOf, type KubeClients } from './kube.ts';
import { waitFor } from './wait.ts';

// The VPA and checkpoint objects as the suites read them back from the API server.

export const VPA_GROUP = 'autoscaling.k8s.io';
export const VPA_VERSION = 'v1';
export const VPAS = 'verticalpodautoscalers';
export const CHECKPOINTS = 'verticalpodautoscalercheckpoints';

export interface Resources {
  cpu?: string;
  memory?: string;
}
export interface ContainerRecommendation {
  containerName: string;
  target?: Resources;
  lowerBound?: Resources;
  upperBound?: Resources;
  uncappedTarget?: Resources;
}
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}
export interface VpaStatus {
  recommendation?: { containerRecommendations?: ContainerRecommendation[] };
  conditions?: Condition[];
  observedGeneration?: number;
}
export interface Vpa {
  metadata: { name: string; generation?: number; resourceVersion?: string };
  spec: Record<string, unknown>;
  status?: VpaStatus;
}
export interface Checkpoint {
  metadata: { name: string; resourceVersion?: string };
  spec: { vpaObjectName: string; containerName: string };
  status?: {
    version?: string;
    lastUpdateTime?: string;
    firstSampleStart?: string;
    lastSampleStart?: string;
    totalSamplesCount?: number;
    cpuHistogram?: { totalWeight?: number };
    memoryHistogram?: { totalWeight?: number };
  };
}

export function recommendationFor(
  vpa: Vpa,
  container = 'app',
): ContainerRecommendation | undefined {
  return vpa.status?.recommendation?.containerRecommendations?.find(
    (recommendation) => recommendation.containerName === container,
  );
}

export function condition(vpa: Vpa, type: string): Condition | undefined {
  return vpa.status?.conditions?.find((candidate) => candidate.type === type);
}

/** Create, read and wait on VPAs and checkpoints of one namespace. */
export interface VpaObjects {
  /** An `Off`-mode VPA targeting Deployment `target`; `extraSpec` adds or overrides fields. */
  createVpa(
    name: string,
    target: string,
    extraSpec?: Record<string, unknown>,
  ): Promise<Vpa>;
  readVpa(name: string): Promise<Vpa>;
  /**
   * Writes a checkpoint as another recommender (or a broken one) would: `name` is its
   * name, or with a trailing `-` a prefix for a generated one.
   */
  createCheckpoint(
    name: string,
    spec: Checkpoint['spec'],
    status?: Record<string, unknown>,
  ): Promise<Checkpoint>;
  /** The checkpoint, or undefined when there is none. */
  readCheckpoint(name: string): Promise<Checkpoint | undefined>;
  /** Writes a recommendation into the status, as a recommender would. */
  writeRecommendation(
    name: string,
    containerRecommendations: ContainerRecommendation[],
  ): Promise<void>;
  /** Replaces the status with `{}`, so the next written recommendation is a change. */
  clearStatus(name: string): Promise<void>;
  /**
   * Waits until the VPA holds a recommendation for container `app` that `accept` takes;
   * a timeout reports the last status seen and `context()` (e.g. a log tail).
   */
  waitForRecommendation(
    name: string,
    description: string,
    options?: {
      accept?: (recommendation: ContainerRecommendation, vpa: Vpa) => boolean;
      timeoutMs?: number;
      context?: () => string;
    },
  ): Promise<{ vpa: Vpa; recommendation: ContainerRecommendation }>;
}

export function vpaObjects(
  kube: KubeClients,
  namespace: () => string,
): VpaObjects {
  const base = () => ({
    group: VPA_GROUP,
    version: VPA_VERSION,
    namespace: namespace(),
  });
  const readVpa = async (name: string) =>
    (await kube.customObjects.getNamespacedCustomObject({
      ...base(),
      plural: VPAS,
      name,
    })) as Vpa;
  return {
    readVpa,
    async createVpa(name, target, extraSpec = {}) {
      return (await kube.customObjects.createNamespacedCustomObject({
        ...base(),
        plural: VPAS,
        body: {
          apiVersion: `${VPA_GROUP}/${VPA_VERSION}`,
          kind: 'VerticalPodAutoscaler',
          metadata: { name },
          spec: {
            targetRef: {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name: target,
            },
            updatePolicy: { updateMode: 'Off' },
            ...extraSpec,
          },
        },
      })) as Vpa;
    },
    async createCheckpoint(name, spec, status) {
      return (await kube.customObjects.createNamespacedCustomObject({
        ...base(),
        plural: CHECKPOINTS,
        body: {
          apiVersion: `${VPA_GROUP}/${VPA_VERSION}`,
          kind: 'VerticalPodAutoscalerCheckpoint',
          metadata: name.endsWith('-') ? { generateName: name } : { name },
          spec,
          ...(status === undefined ? {} : { status }),
        },
      })) as Checkpoint;
    },
    async readCheckpoint(name) {
      try {
        return (await kube.customObjects.getNamespacedCustomObject({
          ...base(),
          plural: CHECKPOINTS,
          name,
        })) as Checkpoint;
      } catch (error) {
        if (httpStatusOf(error) === 404) return undefined;
        throw error;
      }
    },
    async writeRecommendation(name, containerRecommendations) {
      await kube.customObjects.patchNamespacedCustomObjectStatus({
        ...base(),
        plural: VPAS,
        name,
        body: [
          {
            op: 'add',
            path: '/status',
            value: { recommendation: { containerRecommendations } },
          },
        ],
      });
    },
    async clearStatus(name) {
      await kube.customObjects.patchNamespacedCustomObjectStatus({
        ...base(),
        plural: VPAS,
        name,
        body: [{ op: 'replace', path: '/status', value: {} }],
      });
    },
    async waitForRecommendation(name, description, options = {}) {
      const { accept = () => true, timeoutMs = 120_000, context } = options;
      let last: Vpa | undefined;
      return waitFor(
        `${description} (VPA ${namespace()}/${name})`,
        async () => {
          last = await readVpa(name);
          const recommendation = recommendationFor(last);
          return recommendation?.target !== undefined &&
            accept(recommendation, last)
            ? { vpa: last, recommendation }
            : undefined;
        },
        { timeoutMs, intervalMs: 200 },
        async () =>
          `status ${JSON.stringify(last?.status)}${context === undefined ? '' : `; ${context()}`}`,
      );
    },
  };
}
