import { jsonPointer, type AddOperation } from '@tandem/admission';
import {
  computeContainerResources,
  PodAnnotation,
  type LimitRange,
  type Pod,
  type ResourceList,
  type VerticalPodAutoscaler,
  type VpaContainer,
  vpaContainersByName,
} from '@tandem/vpa-api';
import { applicableRecommendation } from './controlled-recommendation.js';

/**
 * The JSON Patch to send to the pod's `resize` subresource: per container or native sidecar
 * with a recommendation, the capped requests and, with RequestsAndLimits, limits in the original
 * limit-to-request ratio, the same values the admission webhook sets at creation; resources
 * the pod declares at pod level are left out (`applicableRecommendation`). Missing
 * `resources`/`requests`/`limits` objects are added first; existing ones are kept. A
 * container still carrying a CPU startup boost annotation is left to the un-boost.
 * Empty when nothing is to be set: then there is nothing to resize. Values are listed by
 * resource name. Throws `QuantityError` for a malformed quantity.
 */
export function inPlaceResizePatch(
  pod: Pod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[] = [],
): AddOperation[] {
  const annotations = pod.metadata?.annotations ?? {};
  const places = vpaContainersByName(pod);
  return computeContainerResources(
    pod,
    applicableRecommendation(pod, vpa),
    limitRanges,
  ).flatMap((resources) => {
    const place = places.get(resources.containerName);
    const boostKey = `${PodAnnotation.vpaCpuStartupBoostPrefix}${resources.containerName}`;
    if (place === undefined || annotations[boostKey] !== undefined) return [];
    return containerResourceOperations(place, {
      requests: resources.requests,
      limits: resources.limits ?? {},
    });
  });
}

/**
 * The normal (not `resize`) JSON Patch upstream sends after a successful resize: marks the
 * pod `vpaInPlaceUpdated: "true"`, adding the annotations map where the pod has none.
 */
export function inPlaceUpdatedAnnotationPatch(pod: Pod): AddOperation[] {
  return [
    ...(pod.metadata?.annotations === undefined
      ? [add(jsonPointer('metadata', 'annotations'), {})]
      : []),
    add(
      jsonPointer('metadata', 'annotations', PodAnnotation.vpaInPlaceUpdated),
      'true',
    ),
  ];
}

/**
 * The operations that set a managed container's requests and limits to `values` (in name
 * order), adding its `resources`, `requests` and `limits` objects where the pod lacks them.
 */
export function containerResourceOperations(
  { field, index, container }: VpaContainer,
  values: { requests: ResourceList; limits: ResourceList },
): AddOperation[] {
  const current = container.resources;
  // A native sidecar is resized under `/spec/initContainers/<i>` (AEP-8905).
  const path = ['spec', field, index, 'resources'] as const;
  const operations: AddOperation[] = [];
  for (const field of ['requests', 'limits'] as const) {
    const entries = Object.entries(values[field]).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    if (entries.length === 0) continue;
    if (current === undefined && operations.length === 0) {
      operations.push(add(jsonPointer(...path), {}));
    }
    if (current?.[field] === undefined) {
      operations.push(add(jsonPointer(...path, field), {}));
    }
    for (const [resource, quantity] of entries) {
      operations.push(add(jsonPointer(...path, field, resource), quantity));
    }
  }
  return operations;
}

function add(path: string, value: unknown): AddOperation {
  return { op: 'add', path, value };
}
