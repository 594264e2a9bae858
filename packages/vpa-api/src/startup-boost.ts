import { getContainerPolicy } from './container-policy.js';
import { isRecord } from './guards.js';
import { parseQuantity } from './quantity.js';
import {
  PodAnnotation,
  type Container,
  type ResourceList,
  type StartupBoost,
  type VerticalPodAutoscaler,
} from './types.js';

/**
 * Whether the VPA asks for a CPU startup boost, at pod level or in any container policy
 * (upstream `HasStartupBoost`, `pkg/utils/vpa/api.go`). Such a VPA is acted on in modes
 * Off and Initial too: the webhook boosts, the updater unboosts.
 */
export function hasStartupBoost(vpa: VerticalPodAutoscaler): boolean {
  if (vpa.spec.startupBoost != null) return true;
  return (vpa.spec.resourcePolicy?.containerPolicies ?? []).some(
    (policy) => policy.startupBoost != null,
  );
}

/**
 * The boost that applies to a container: its policy's (exact name, else `*`) when that
 * policy has one, else the pod-level one (upstream `getContainerStartupBoostPolicy`,
 * `pkg/admission-controller/resource/pod/patch/resource_updates.go`).
 */
export function containerStartupBoost(
  vpa: VerticalPodAutoscaler,
  containerName: string,
): StartupBoost | undefined {
  return (
    getContainerPolicy(vpa, containerName)?.startupBoost ??
    vpa.spec.startupBoost ??
    undefined
  );
}

/**
 * How long a container stays boosted once its pod is Ready: the pod-level
 * `durationSeconds`, overridden by the container policy's own (upstream
 * `getContainerCPUStartupBoostDuration`, `pkg/utils/vpa/api.go`). 0: unboost at once.
 */
export function startupBoostDurationSeconds(
  vpa: VerticalPodAutoscaler,
  containerName: string,
): number {
  const own = getContainerPolicy(vpa, containerName)?.startupBoost?.cpu
    ?.durationSeconds;
  const podLevel = vpa.spec.startupBoost?.cpu?.durationSeconds;
  return own ?? podLevel ?? 0;
}

/** `vpaCpuStartupBoost/<container>` (upstream `GetStartupCPUBoostAnnotationKey`). */
export function startupBoostAnnotationKey(containerName: string): string {
  return `${PodAnnotation.vpaCpuStartupBoostPrefix}${containerName}`;
}

/** The container's resources before its boost, as the boost annotation records them. */
export interface BoostOriginalResources {
  requests: ResourceList;
  limits: ResourceList;
}

const RECORDED = ['cpu', 'memory'] as const;

/**
 * The boost annotation's value: JSON of the container's cpu and memory requests and limits
 * as declared, in upstream's format (`GetOriginalResourcesAnnotationValue`,
 * `pkg/utils/annotations/vpa_cpu_boost.go`: Go's encoding of `OriginalResources`, keys
 * sorted, quantities in canonical form), e.g. `{"requests":{"cpu":"500m"},"limits":{}}`.
 * Throws `QuantityError` for a malformed quantity.
 */
export function boostAnnotationValue(container: Container): string {
  const pick = (list: ResourceList | undefined): ResourceList =>
    Object.fromEntries(
      RECORDED.flatMap((name) => {
        const text = list && Object.hasOwn(list, name) ? list[name] : undefined;
        return text === undefined
          ? []
          : [[name, parseQuantity(text).toString()]];
      }),
    );
  return JSON.stringify({
    requests: pick(container.resources?.requests),
    limits: pick(container.resources?.limits),
  });
}

/**
 * Reads a boost annotation back, checking every value is a quantity: a broken annotation
 * (hand-edited, truncated) yields why it cannot be used, never values to resize to. Upstream
 * (`GetOriginalResourcesFromAnnotation`) fails the pod's update on malformed JSON too.
 */
export function parseBoostAnnotation(
  text: string,
): BoostOriginalResources | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON: ${(error as Error).message}` };
  }
  if (!isRecord(value)) return { problem: 'not a JSON object' };
  const lists: BoostOriginalResources = { requests: {}, limits: {} };
  for (const field of ['requests', 'limits'] as const) {
    const list = value[field];
    if (list === undefined || list === null) continue;
    if (!isRecord(list)) return { problem: `${field} is not an object` };
    for (const [name, quantity] of Object.entries(list)) {
      if (typeof quantity !== 'string')
        return { problem: `${field}.${name} is not a quantity string` };
      try {
        if (parseQuantity(quantity).sign() < 0)
          return { problem: `${field}.${name} is negative: ${quantity}` };
      } catch (error) {
        return { problem: `${field}.${name}: ${(error as Error).message}` };
      }
      lists[field][name] = quantity;
    }
  }
  return lists;
}

/** The containers whose boost annotation the pod carries, by annotation key. */
export function boostedContainerNames(
  annotations: Readonly<Record<string, string>> | undefined,
): string[] {
  return Object.keys(annotations ?? {})
    .filter((key) => key.startsWith(PodAnnotation.vpaCpuStartupBoostPrefix))
    .map((key) => key.slice(PodAnnotation.vpaCpuStartupBoostPrefix.length));
}
