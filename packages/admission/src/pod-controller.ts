import type {
  AdmissionContext,
  ControllerKey,
  ControllerReference,
  VpaCandidate,
} from './admission-types.js';
import { isRecord } from './guards.js';
import { describeError } from './text.js';
import { selectsPod } from './vpa-choice.js';
import type { Labels } from '@tandem/vpa-api';

/**
 * The pod's controlling owner reference, as upstream's `FindParentControllerForPod`
 * (`pkg/utils/vpa/api.go`) takes it: the last one marked `controller: true` (the API server
 * allows one). Undefined for a pod without one, which no VPA controls. Checks JSON types,
 * since a reviewed pod is whatever a client sent.
 */
export function controllingOwner(
  ownerReferences: unknown,
): ControllerReference | undefined {
  const owner = controllingReference(ownerReferences);
  if (owner === undefined) return undefined;
  const { apiVersion, kind, name } = owner;
  if (typeof kind !== 'string' || typeof name !== 'string') return undefined;
  return typeof apiVersion === 'string'
    ? { apiVersion, kind, name }
    : { kind, name };
}

/**
 * The last owner reference marked `controller: true`, as it stands (fields unchecked):
 * what `controllingOwner` reads, for a caller that looks at other fields too (the
 * updater groups pods by the reference's `uid`). Walks back without copying the list.
 */
export function controllingReference(
  ownerReferences: unknown,
): Record<string, unknown> | undefined {
  if (!Array.isArray(ownerReferences)) return undefined;
  for (let index = ownerReferences.length - 1; index >= 0; index -= 1) {
    const reference: unknown = ownerReferences[index];
    if (isRecord(reference) && reference['controller'] === true)
      return reference;
  }
  return undefined;
}

/**
 * The reviewed pod's top-most controller, looked up only when it can matter: the pod has a
 * controlling owner and some candidate's selector matches its labels (otherwise no VPA can
 * control it, whatever the walk finds, and a review costs no lookup). An Error saying why
 * when the lookup fails, so `admit` can let the pod through unchanged.
 */
export async function reviewedPodController(
  pod: {
    namespace: string;
    labels: Labels | undefined;
    /** The pod as submitted: its `metadata.ownerReferences` are read from here. */
    raw: Record<string, unknown>;
  },
  candidates: readonly VpaCandidate[],
  context: Pick<AdmissionContext, 'topMostController'>,
): Promise<ControllerKey | undefined | Error> {
  const metadata = pod.raw['metadata'];
  const owner = controllingOwner(
    isRecord(metadata) ? metadata['ownerReferences'] : undefined,
  );
  if (owner === undefined) return undefined;
  if (!candidates.some((candidate) => selectsPod(candidate, pod.labels)))
    return undefined;
  try {
    const controller: unknown = await context.topMostController(
      pod.namespace,
      owner,
    );
    if (controller === undefined || isControllerKey(controller))
      return controller;
    return new Error('owner lookup failed: returned no controller key');
  } catch (error) {
    return new Error(
      `owner lookup failed for ${owner.kind} ${pod.namespace}/${owner.name}: ${describeError(error)}`,
    );
  }
}

function isControllerKey(value: unknown): value is ControllerKey {
  return (
    isRecord(value) &&
    typeof value['kind'] === 'string' &&
    typeof value['name'] === 'string'
  );
}
