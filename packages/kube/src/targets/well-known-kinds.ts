import type { LabelSelector } from '@tandem/vpa-api';

/** What target resolution needs from a target object, whichever way it was read. */
export interface TargetObject {
  ownerReferences?: {
    apiVersion?: string;
    kind: string;
    name: string;
    controller?: boolean;
  }[];
  selector: LabelSelector | undefined;
}

/** The parts of a well-known controller's JSON that hold its pod selector. */
export interface ControllerObject {
  metadata?: { ownerReferences?: TargetObject['ownerReferences'] };
  spec?: {
    selector?: unknown;
    jobTemplate?: {
      spec?: { template?: { metadata?: { labels?: Record<string, string> } } };
    };
  };
}

interface WellKnownKindInfo {
  /** The API group ('' for core), version and resource the cache lists and watches. */
  group: string;
  version: string;
  resource: string;
  selector: (object: ControllerObject) => LabelSelector | undefined;
}

// The API's operator is a plain string; the model validates it when it compiles the selector.
const specSelector = (object: ControllerObject) =>
  object.spec?.selector as LabelSelector | undefined;
const matchLabels = (labels: Record<string, string> | undefined) =>
  labels === undefined ? undefined : { matchLabels: labels };

/**
 * Upstream's well-known controllers: their pod selectors are read from the objects
 * themselves, so they need no scale subresource. Any other kind goes through `/scale`.
 */
export const WELL_KNOWN_KINDS = {
  Deployment: {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    selector: specSelector,
  },
  ReplicaSet: {
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    selector: specSelector,
  },
  StatefulSet: {
    group: 'apps',
    version: 'v1',
    resource: 'statefulsets',
    selector: specSelector,
  },
  DaemonSet: {
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    selector: specSelector,
  },
  Job: {
    group: 'batch',
    version: 'v1',
    resource: 'jobs',
    selector: specSelector,
  },
  // Neither has a LabelSelector: a CronJob's pods carry its job template's labels, and a
  // ReplicationController selects by a plain label map.
  CronJob: {
    group: 'batch',
    version: 'v1',
    resource: 'cronjobs',
    selector: (object) =>
      matchLabels(object.spec?.jobTemplate?.spec?.template?.metadata?.labels),
  },
  ReplicationController: {
    group: '',
    version: 'v1',
    resource: 'replicationcontrollers',
    selector: (object) =>
      matchLabels(object.spec?.selector as Record<string, string> | undefined),
  },
} as const satisfies Record<string, WellKnownKindInfo>;

export type WellKnownKind = keyof typeof WELL_KNOWN_KINDS;

export function isWellKnownKind(kind: string): kind is WellKnownKind {
  return Object.hasOwn(WELL_KNOWN_KINDS, kind);
}

/** `/api/v1` for the core group, `/apis/<group>/<version>` for the others. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** The kind's collection, cluster-wide or in one namespace. */
export function collectionPath(
  kind: WellKnownKind,
  namespace: string | undefined,
): string {
  const { group, version, resource } = WELL_KNOWN_KINDS[kind];
  const scope = namespace === undefined ? '' : `/namespaces/${namespace}`;
  return `${groupVersionPath(group, version)}${scope}/${resource}`;
}

/** A cached controller as target resolution sees it. */
export function wellKnownTarget(
  kind: WellKnownKind,
  object: ControllerObject,
): TargetObject {
  return {
    ownerReferences: object.metadata?.ownerReferences,
    selector: WELL_KNOWN_KINDS[kind].selector(object),
  };
}
