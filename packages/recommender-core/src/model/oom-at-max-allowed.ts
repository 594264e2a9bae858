import {
  getContainerPolicy,
  parseMemoryBytes,
  type ResourceList,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';

/**
 * The memory a container may be recommended at most, in bytes: its policy's `maxAllowed`,
 * else `--container-recommendation-max-allowed-memory` (the precedence of upstream's
 * `applyVPAPolicyForContainer`, `pkg/utils/vpa/capping.go`); undefined for none. A zero or
 * unreadable quantity caps nothing, as `maybeCapToMax` skips a zero one.
 */
export function memoryMaxAllowedBytes(
  vpa: VerticalPodAutoscaler,
  containerName: string,
  globalMaxAllowed: ResourceList,
): number | undefined {
  const text =
    getContainerPolicy(vpa, containerName)?.maxAllowed?.['memory'] ??
    globalMaxAllowed['memory'];
  const bytes = memoryBytes(text);
  return bytes === undefined || bytes <= 0 ? undefined : bytes;
}

/** The memory target the VPA's status recommends for a container, bytes; undefined for none. */
export function recommendedMemoryBytes(
  vpa: VerticalPodAutoscaler,
  containerName: string,
): number | undefined {
  const recommendation =
    vpa.status?.recommendation?.containerRecommendations?.find(
      (container) => container.containerName === containerName,
    );
  return memoryBytes(recommendation?.target?.['memory']);
}

/**
 * An OOM kill "at maxAllowed": the container's current target is already at (or, with a
 * lowered cap, above) its memory maxAllowed, so the recommender cannot raise it, the
 * bump-up cannot help and the container will OOM again (kubernetes/autoscaler#9521).
 */
export interface OomAtMaxAllowed {
  readonly containerName: string;
  readonly podName: string;
  /** The request of the killed container. */
  readonly requestBytes: number;
  readonly targetBytes: number;
  readonly maxAllowedBytes: number;
}

export function oomAtMaxAllowedMessage(oom: OomAtMaxAllowed): string {
  const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)}Mi`;
  return (
    `Container ${oom.containerName} of pod ${oom.podName} was OOM-killed with a memory ` +
    `request of ${mib(oom.requestBytes)}; its memory target ${mib(oom.targetBytes)} is ` +
    `already at maxAllowed ${mib(oom.maxAllowedBytes)}, so the recommender cannot raise it: ` +
    `raise maxAllowed memory (or the --container-recommendation-max-allowed-memory cap) or ` +
    `lower the container's memory use`
  );
}

function memoryBytes(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  try {
    return parseMemoryBytes(text);
  } catch {
    // Malformed or beyond 2^53 bytes: the VPA's policy is unusable, reported where it is read.
    return undefined;
  }
}
