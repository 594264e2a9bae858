import { vpaClient } from '@tandem/kube/clients';
import {
  VPA_API_VERSION,
  VPA_CHECKPOINT_KIND,
  VPA_KIND,
  type VerticalPodAutoscaler,
  type VerticalPodAutoscalerCheckpoint,
  type VerticalPodAutoscalerStatus,
} from '@tandem/vpa-api';
import type { KubeClients } from './kube.ts';
import { waitFor } from './wait.ts';

// The VPA and checkpoint objects as the suites read them back from the API server, through
// the client the recommender writes with.

export {
  VPA_API_GROUP as VPA_GROUP,
  VPA_VERSION,
  VPA_PLURAL as VPAS,
  VPA_CHECKPOINT_PLURAL as CHECKPOINTS,
} from '@tandem/vpa-api';

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
  metadata: {
    name: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
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

/**
 * A VPA spec fragment naming a recommender that does not run: no recommender writes its
 * status, so a test writes the recommendation it needs (`writeRecommendation`).
 */
export const MANUAL_RECOMMENDER = { recommenders: [{ name: 'manual' }] };

/** Target, lower bound and upper bound of one resource. */
export type Bounds = readonly [target: string, lower: string, upper: string];

/** The recommendation of container `app`: CPU and memory, each as its three bounds. */
export function appRecommendation(
  cpu: Bounds,
  memory: Bounds,
): ContainerRecommendation[] {
  return [
    {
      containerName: 'app',
      target: { cpu: cpu[0], memory: memory[0] },
      lowerBound: { cpu: cpu[1], memory: memory[1] },
      upperBound: { cpu: cpu[2], memory: memory[2] },
    },
  ];
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
  /**
   * An `Off`-mode VPA targeting Deployment `target`; `extraSpec` adds or overrides fields,
   * `annotations` are its metadata's (e.g. `tandem.dev/strategy`).
   */
  createVpa(
    name: string,
    target: string,
    extraSpec?: Record<string, unknown>,
    annotations?: Record<string, string>,
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
      context?: () => string | Promise<string>;
    },
  ): Promise<{ vpa: Vpa; recommendation: ContainerRecommendation }>;
}

export function vpaObjects(
  kube: KubeClients,
  namespace: () => string,
): VpaObjects {
  const client = vpaClient(kube.config);
  const readVpa = async (name: string) =>
    (await client.readVpa(namespace(), name)) as unknown as Vpa;
  return {
    readVpa,
    async createVpa(name, target, extraSpec = {}, annotations) {
      const vpa = {
        apiVersion: VPA_API_VERSION,
        kind: VPA_KIND,
        metadata: { name, annotations },
        spec: {
          targetRef: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: target,
          },
          updatePolicy: { updateMode: 'Off' },
          ...extraSpec,
        },
      } as VerticalPodAutoscaler;
      return (await client.createVpa(namespace(), vpa)) as unknown as Vpa;
    },
    async createCheckpoint(name, spec, status) {
      const checkpoint = {
        apiVersion: VPA_API_VERSION,
        kind: VPA_CHECKPOINT_KIND,
        metadata: name.endsWith('-') ? { generateName: name } : { name },
        spec,
        ...(status === undefined ? {} : { status }),
      } as VerticalPodAutoscalerCheckpoint;
      return (await client.createCheckpoint(
        namespace(),
        checkpoint,
      )) as unknown as Checkpoint;
    },
    async readCheckpoint(name) {
      return (await client.readCheckpoint(namespace(), name)) as
        | Checkpoint
        | undefined;
    },
    async writeRecommendation(name, containerRecommendations) {
      await client.writeStatus(namespace(), name, {
        recommendation: { containerRecommendations },
      } as VerticalPodAutoscalerStatus);
    },
    async clearStatus(name) {
      // `add` replaces an existing member, so this is the `replace /status {}` it once was.
      await client.writeStatus(namespace(), name, {});
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
          `status ${JSON.stringify(last?.status)}${context === undefined ? '' : `; ${await context()}`}`,
      );
    },
  };
}
