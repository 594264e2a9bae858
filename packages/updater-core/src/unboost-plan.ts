import { jsonPointer, type AddOperation } from '@tandem/admission';
import {
  containerResourceOperations,
  inPlaceResizePatch,
  type UpdaterPod,
} from '@tandem/update-decisions';
import {
  boostedContainerNames,
  getUpdateMode,
  parseBoostAnnotation,
  startupBoostAnnotationKey,
  startupBoostDurationSeconds,
  UpdateMode,
  type LimitRange,
  type ResourceList,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import type { RemoveOperation } from './pod-actions.js';

/** What ending a pod's expired CPU startup boosts takes. */
export type UnboostPlan =
  | {
      /** The containers whose boost is over, in pod order. */
      containers: string[];
      /** The `resize` subresource patch bringing them back down. */
      resize: AddOperation[];
      /** The plain pod patch after it: their annotations removed, `vpaInPlaceUpdated`. */
      annotations: (AddOperation | RemoveOperation)[];
    }
  | { containers: string[]; problem: string };

/**
 * The containers of the pod whose boost is over (upstream
 * `GetExpiredStartupCPUBoostAnnotations`, `pkg/utils/vpa/api.go`): the pod is Ready, and
 * has been for longer than the boost's `durationSeconds` (0: as soon as it is Ready).
 * Empty when the pod is not Ready.
 */
export function expiredBoosts(
  pod: UpdaterPod,
  vpa: VerticalPodAutoscaler,
  now: Date,
): string[] {
  const ready = pod.status?.conditions?.find(
    (condition) => condition.type === 'Ready',
  );
  if (ready?.status !== 'True') return [];
  const readySince = Date.parse(ready.lastTransitionTime ?? '');
  return boostedContainerNames(pod.metadata?.annotations).filter((name) => {
    const seconds = startupBoostDurationSeconds(vpa, name);
    // An unreadable transition time counts as Go's zero time: long ago.
    const readyFor = Number.isNaN(readySince)
      ? Number.POSITIVE_INFINITY
      : now.getTime() - readySince;
    return seconds === 0 || readyFor > seconds * 1000;
  });
}

/**
 * How to end the expired boosts of a pod, as upstream's in-place calculator does it
 * (`pkg/updater/inplace/resource_updates.go`, `getContainerResourcesForUnboost`): each such
 * container goes to its recommendation, the same values the webhook sets (none in update
 * mode Off), or, without one, back to the values its boost annotation recorded. Unlike
 * upstream, a recommendation without CPU (controlledResources memory only) has the CPU
 * restored from the annotation too, or it would stay boosted for good; and only the expired
 * containers are resized, others wait for the ordinary update (upstream resizes them to the
 * recommendation in the same patch, in mode Initial too). A broken annotation yields a
 * problem and no patch: nothing is resized to values read from it.
 */
export function unboostPlan(
  pod: UpdaterPod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[],
  now: Date,
): UnboostPlan | undefined {
  const expired = expiredBoosts(pod, vpa, now);
  if (expired.length === 0) return undefined;
  const annotations = pod.metadata?.annotations ?? {};
  const stillBoosted = Object.fromEntries(
    Object.entries(annotations).filter(
      ([key]) =>
        !expired.some((name) => startupBoostAnnotationKey(name) === key),
    ),
  );
  const recommended =
    getUpdateMode(vpa) === UpdateMode.Off
      ? []
      : inPlaceResizePatch(
          { ...pod, metadata: { ...pod.metadata, annotations: stillBoosted } },
          vpa,
          limitRanges,
        );
  const resize: AddOperation[] = [];
  for (const name of expired) {
    const index = pod.spec.containers.findIndex(
      (container) => container.name === name,
    );
    const container = pod.spec.containers[index];
    if (container === undefined) continue;
    const own = recommended.filter(
      (operation) => containerIndexOf(operation.path) === index,
    );
    const setsCpu = own.some((operation) =>
      operation.path.endsWith('/requests/cpu'),
    );
    resize.push(...own);
    if (setsCpu) continue;
    const original = parseBoostAnnotation(
      annotations[startupBoostAnnotationKey(name)] ?? '',
    );
    if ('problem' in original)
      return {
        containers: expired,
        problem: `the annotation ${startupBoostAnnotationKey(name)} is unusable (${original.problem})`,
      };
    resize.push(
      // The recorded values written back, each parent object added where the pod lacks it.
      ...containerResourceOperations(
        { field: 'containers', index, container },
        own.length === 0 ? original : cpuOnly(original),
      ),
    );
  }
  if (resize.length === 0)
    return {
      containers: expired,
      problem:
        'nothing to resize to: no recommendation and no value recorded in the boost annotation',
    };
  return {
    containers: expired,
    resize,
    annotations: [
      ...(pod.metadata?.annotations === undefined
        ? [{ op: 'add' as const, path: '/metadata/annotations', value: {} }]
        : []),
      ...expired.map((name) => ({
        op: 'remove' as const,
        path: jsonPointer(
          'metadata',
          'annotations',
          startupBoostAnnotationKey(name),
        ),
      })),
      {
        op: 'add' as const,
        path: '/metadata/annotations/vpaInPlaceUpdated',
        value: 'true',
      },
    ],
  };
}

function containerIndexOf(path: string): number | undefined {
  const match = /^\/spec\/containers\/(\d+)\//.exec(path);
  return match ? Number(match[1]) : undefined;
}

function cpuOnly(original: { requests: ResourceList; limits: ResourceList }) {
  const pick = (list: ResourceList): ResourceList =>
    list['cpu'] === undefined ? {} : { cpu: list['cpu'] };
  return { requests: pick(original.requests), limits: pick(original.limits) };
}
