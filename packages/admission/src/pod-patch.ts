import type { Container, ResourceList } from '@tandem/vpa-api';
import type { ContainerUpdate } from './container-updates.js';
import { jsonPointer, type AddOperation } from './json-patch.js';
import type { DecodedPod } from './pod-decoder.js';

/**
 * The JSON Patch for a pod (§6.2 step 6), in upstream's order: an empty annotations map
 * where the pod has none, the containers' resources (each parent object added where the
 * pod lacks it; a native sidecar's under `/spec/initContainers/<i>`), then the annotations.
 * `add` on an existing member replaces it, so values are written whether or not the pod had them. Unlike upstream, an existing `resources`
 * object is never replaced by an empty one, so fields such as `claims` survive.
 */
export function podPatch(
  pod: DecodedPod,
  updates: readonly ContainerUpdate[],
  annotations: ReadonlyArray<readonly [string, string]>,
): AddOperation[] {
  const operations: AddOperation[] = [];
  if (annotations.length > 0) {
    if (!pod.hasMetadata) operations.push(add(jsonPointer('metadata'), {}));
    if (!pod.hasAnnotations) {
      operations.push(add(jsonPointer('metadata', 'annotations'), {}));
    }
  }
  for (const update of updates) {
    const container =
      pod.pod.spec[update.field ?? 'containers']?.[update.index];
    if (container) operations.push(...containerOperations(container, update));
  }
  for (const [key, value] of annotations) {
    operations.push(add(jsonPointer('metadata', 'annotations', key), value));
  }
  return operations;
}

function containerOperations(
  container: Container,
  update: ContainerUpdate,
): AddOperation[] {
  const path = [
    'spec',
    update.field ?? 'containers',
    update.index,
    'resources',
  ] as const;
  const operations: AddOperation[] = [];
  if (container.resources === undefined) {
    operations.push(add(jsonPointer(...path), {}));
  }
  for (const field of ['requests', 'limits'] as const) {
    const values: ResourceList = update[field];
    const entries = Object.entries(values);
    if (entries.length === 0) continue;
    if (container.resources?.[field] === undefined) {
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
