import type {
  Container,
  ContainerStatus,
  Pod,
  ResourceRequirements,
} from '@tandem/vpa-api';

/**
 * The core/v1 pod fields the updater reads beyond `@tandem/vpa-api`'s `Pod`. Structural and
 * a subtype of `Pod`, so a pod read from the API server fits both.
 */
export interface UpdaterPod extends Pod {
  spec: UpdaterPodSpec;
  status?: UpdaterPodStatus;
}

export interface UpdaterPodSpec {
  containers: UpdaterContainer[];
  /** Native sidecars among them may carry a `resizePolicy` too. */
  initContainers?: UpdaterContainer[];
  /** Set once the pod is scheduled; the updater only looks at scheduled pods. */
  nodeName?: string;
  /** Pod-level requests and limits: the updater leaves these resources alone (ADR 0016). */
  resources?: ResourceRequirements;
}

export interface UpdaterContainer extends Container {
  resizePolicy?: ContainerResizePolicy[];
}

export interface ContainerResizePolicy {
  resourceName: string;
  /** `NotRequired` (the default) or `RestartContainer`. */
  restartPolicy: string;
}

export interface UpdaterPodStatus extends NonNullable<Pod['status']> {
  conditions?: PodCondition[];
  containerStatuses?: UpdaterContainerStatus[];
  /** Native sidecars' statuses (resources after a resize, last termination). */
  initContainerStatuses?: UpdaterContainerStatus[];
}

export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
}

export interface UpdaterContainerStatus extends ContainerStatus {
  /** Go's `LastTerminationState`; JSON name `lastState`. */
  lastState?: { terminated?: TerminatedState | null } | null;
}

export interface TerminatedState {
  reason?: string;
  exitCode?: number;
  startedAt?: string | null;
  finishedAt?: string | null;
}

export const PodPhase = {
  Pending: 'Pending',
  Running: 'Running',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
} as const;

/** Upstream's pod key (`getPodID`): `namespace/name`. */
export function podId(pod: Pod): string {
  let id = podIds.get(pod);
  if (id === undefined) {
    id = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    podIds.set(pod, id);
  }
  return id;
}

/**
 * Each pod object's key, built once: the updater asks for it several times per pod and
 * cycle (replica groups, decisions, logs), and a pod object, as the caches hand it out, is
 * never renamed (a changed pod is a new object).
 */
const podIds = new WeakMap<Pod, string>();

/**
 * Whether the updater counts the pod at all: scheduled, not finished, not being deleted.
 * Upstream filters its pod list this way (field selector plus `deletionTimestamp`); doing it
 * here too keeps replica counts right whatever list the caller passes.
 */
export function isLivePod(pod: UpdaterPod): boolean {
  const phase = pod.status?.phase;
  return (
    (pod.spec.nodeName ?? '') !== '' &&
    phase !== PodPhase.Succeeded &&
    phase !== PodPhase.Failed &&
    pod.metadata?.deletionTimestamp === undefined
  );
}

export function isPending(pod: UpdaterPod): boolean {
  return pod.status?.phase === PodPhase.Pending;
}

/** 0001-01-01T00:00:00Z, Go's `time.Time{}`. */
const GO_ZERO_TIME_MS = -62_135_596_800_000;

/**
 * A timestamp as epoch milliseconds, with Go's zero time for an absent one: upstream
 * subtracts `metav1.Time` values without checking them, and the zero time is what it gets.
 */
export function timeOrGoZero(text: string | null | undefined): number {
  const parsed = text ? Date.parse(text) : Number.NaN;
  return Number.isNaN(parsed) ? GO_ZERO_TIME_MS : parsed;
}
