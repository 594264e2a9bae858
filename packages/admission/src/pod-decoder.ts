import type {
  Container,
  Pod,
  ResourceList,
  ResourceRequirements,
} from '@tandem/vpa-api';
import { isAbsent, isRecord } from './guards.js';
import { describeValue } from '@tandem/vpa-api';

/** A submitted pod, reduced to what the webhook reads, with JSON types checked. */
export interface DecodedPod {
  /** The pod as submitted, which a patch must apply to. */
  raw: Record<string, unknown>;
  /**
   * Metadata (name, generateName, namespace, labels, annotations), the containers'
   * names and resources, and the pod-level resources. `status` is left out: a pod being created has none, and the
   * capping code would otherwise prefer whatever a client put there over the spec.
   * A `resources`, `requests` or `limits` field is present here exactly when it is an
   * object in the submitted pod.
   */
  pod: Pod;
  /** Whether the submitted pod has a `metadata` object (else a patch must add one). */
  hasMetadata: boolean;
  /** Whether it has an `annotations` object (else a patch must add one, as upstream does). */
  hasAnnotations: boolean;
  /** The first owner reference marked `controller`, for logs. */
  controller?: { kind: string; name: string };
}

export type PodDecoding =
  | { decoded: DecodedPod; problem?: undefined }
  | { decoded?: undefined; problem: string };

class MalformedPod extends Error {}

/**
 * Checks the JSON types of the fields the webhook reads or patches; everything else is the
 * API server's business. Absent and `null` fields are treated alike. Quantity strings are not
 * parsed here: a malformed one is still recorded as submitted, and reported when used.
 */
export function decodePod(object: unknown): PodDecoding {
  try {
    return { decoded: decode(object) };
  } catch (error) {
    if (error instanceof MalformedPod) return { problem: error.message };
    throw error;
  }
}

function decode(object: unknown): DecodedPod {
  if (isAbsent(object)) throw new MalformedPod('request.object missing');
  const raw = record(object, 'request.object');
  const metadata = optionalRecord(raw['metadata'], 'metadata') ?? {};
  const labels = stringMap(metadata['labels'], 'metadata.labels');
  const annotations = stringMap(
    metadata['annotations'],
    'metadata.annotations',
  );
  if (isAbsent(raw['spec'])) throw new MalformedPod('spec missing');
  const spec = record(raw['spec'], 'spec');
  const containers = containerList(spec['containers'], 'spec.containers');
  const initContainers = containerList(
    spec['initContainers'],
    'spec.initContainers',
  );
  const podResources = resourceRequirements(
    spec['resources'],
    'spec.resources',
  );
  const pod: Pod = {
    metadata: {
      ...optionalString(metadata, 'name'),
      ...optionalString(metadata, 'generateName'),
      ...optionalString(metadata, 'namespace'),
      ...(labels && { labels }),
      ...(annotations && { annotations }),
    },
    spec: {
      containers,
      ...(initContainers.length > 0 && { initContainers }),
      ...(podResources && { resources: podResources }),
    },
  };
  const controller = controllerOf(metadata['ownerReferences']);
  return {
    raw,
    pod,
    hasMetadata: isRecord(raw['metadata']),
    hasAnnotations: annotations !== undefined,
    ...(controller && { controller }),
  };
}

function containerList(value: unknown, path: string): Container[] {
  if (isAbsent(value)) return [];
  if (!Array.isArray(value)) {
    throw new MalformedPod(
      `${path}: must be a list, got ${describeValue(value)}`,
    );
  }
  return value.map((item: unknown, index) =>
    container(item, `${path}[${index}]`),
  );
}

function container(value: unknown, path: string): Container {
  const raw = record(value, path);
  const name = raw['name'];
  if (typeof name !== 'string') {
    throw new MalformedPod(
      `${path}.name: must be a string, got ${describeValue(name)}`,
    );
  }
  const resources = resourceRequirements(raw['resources'], `${path}.resources`);
  // `Always` on an init container makes it a native sidecar the VPA manages (AEP-8905).
  const restartPolicy = raw['restartPolicy'];
  return {
    name,
    ...(resources !== undefined && { resources }),
    ...(typeof restartPolicy === 'string' && { restartPolicy }),
  };
}

/** A container's or the pod's `resources`: its requests and limits. */
function resourceRequirements(
  value: unknown,
  path: string,
): ResourceRequirements | undefined {
  const resources = optionalRecord(value, path);
  if (resources === undefined) return undefined;
  const requests = stringMap(resources['requests'], `${path}.requests`);
  const limits = stringMap(resources['limits'], `${path}.limits`);
  return { ...(requests && { requests }), ...(limits && { limits }) };
}

function controllerOf(
  value: unknown,
): { kind: string; name: string } | undefined {
  if (!Array.isArray(value)) return undefined;
  const reference: unknown = value.find(
    (candidate: unknown) =>
      isRecord(candidate) && candidate['controller'] === true,
  );
  if (!isRecord(reference)) return undefined;
  const { kind, name } = reference;
  return typeof kind === 'string' && typeof name === 'string'
    ? { kind, name }
    : undefined;
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (isRecord(value)) return value;
  throw new MalformedPod(
    `${path}: must be an object, got ${describeValue(value)}`,
  );
}

function optionalRecord(
  value: unknown,
  path: string,
): Record<string, unknown> | undefined {
  return isAbsent(value) ? undefined : record(value, path);
}

/** A map of strings (labels, annotations, resource lists), copied key by key. */
function stringMap(value: unknown, path: string): ResourceList | undefined {
  const raw = optionalRecord(value, path);
  if (raw === undefined) return undefined;
  const entries = Object.entries(raw);
  for (const [key, item] of entries) {
    if (typeof item !== 'string') {
      throw new MalformedPod(
        `${path}[${JSON.stringify(key)}]: must be a string, got ${describeValue(item)}`,
      );
    }
  }
  // fromEntries keeps a `__proto__` key as a plain entry, where assignment would not.
  return Object.fromEntries(entries) as ResourceList;
}

function optionalString(
  metadata: Record<string, unknown>,
  field: 'name' | 'generateName' | 'namespace',
): Partial<Record<typeof field, string>> {
  const value = metadata[field];
  return typeof value === 'string' ? { [field]: value } : {};
}
