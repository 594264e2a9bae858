import type {
  KubernetesObject,
  V1Container,
  V1Pod,
  V1PodTemplateSpec,
} from '@kubernetes/client-node';
import {
  watchedCollection,
  type GetJson,
  type KubeConnection,
  type SharePart,
} from '@tandem/kube';
import { reducedController } from './reduced-objects.js';

/** Owner kinds whose pod template holds what the user declared (a VPA changes pods only). */
const OWNER_COLLECTIONS = {
  ReplicaSet: '/apis/apps/v1/replicasets',
  StatefulSet: '/apis/apps/v1/statefulsets',
  DaemonSet: '/apis/apps/v1/daemonsets',
  Job: '/apis/batch/v1/jobs',
} as const;

type OwnerKind = keyof typeof OWNER_COLLECTIONS;

export interface TemplateOwner extends KubernetesObject {
  spec?: { template?: V1PodTemplateSpec };
}

export interface PodTemplates {
  /** The containers of the template of the pod's controller, when it is known and cached. */
  containersOf(pod: V1Pod): V1Container[] | undefined;
  /**
   * A number that changes whenever a template's containers in `namespace` may have
   * changed (a controller added, deleted, or updated with other containers), so what was
   * worked out from them is kept until then.
   */
  revision(namespace: string): number;
  start(): Promise<void>;
  hasSynced(): boolean;
  stop(): Promise<void>;
}

/**
 * List+watch caches of the controllers that own pods, for the template fallback, each
 * controller reduced to its template's containers' resources (`reducedController`).
 */
export function podTemplates({
  connection,
  get,
  pageSize,
  share,
  onListed,
  onError,
}: {
  connection: KubeConnection;
  get: GetJson;
  /** `--list-page-size`. */
  pageSize: number;
  /** Shares the templates' parts with each other and with the pods' (`reducedController`). */
  share: SharePart;
  /** Called after every completed list of each kind. */
  onListed: () => void;
  onError: (kind: string, error: unknown) => void;
}): PodTemplates {
  const caches = new Map(
    Object.entries(OWNER_COLLECTIONS).map(([kind, path]) => [
      kind as OwnerKind,
      watchedCollection<TemplateOwner>({
        connection,
        get,
        path,
        pageSize,
        // Only the template's containers' resources are read, of objects as large as pods.
        reduce: (owner) => reducedController(owner, share),
        onListed,
        onError: (error) => onError(kind, error),
      }),
    ]),
  );
  // Status updates, the most frequent change of a controller, leave its reduced containers
  // the very same shared object: they change no revision.
  const revisions = new Map<string, number>();
  let changes = 0;
  const containers = (owner: TemplateOwner) =>
    owner.spec?.template?.spec?.containers;
  for (const cache of caches.values())
    cache.onEvent((event) => {
      if (
        event.type === 'update' &&
        containers(event.object) === containers(event.previous)
      )
        return;
      changes += 1;
      revisions.set(event.object.metadata?.namespace ?? '', changes);
    });
  return {
    revision: (namespace) => revisions.get(namespace) ?? 0,
    containersOf(pod) {
      const owner = pod.metadata?.ownerReferences?.find(
        (reference) => reference.controller === true,
      );
      const cache = caches.get(owner?.kind as OwnerKind);
      if (owner === undefined || cache === undefined) return undefined;
      const found = cache.get(owner.name, pod.metadata?.namespace ?? '');
      return found === undefined ? undefined : containers(found);
    },
    async start() {
      await Promise.all([...caches.values()].map((cache) => cache.start()));
    },
    hasSynced: () => [...caches.values()].every((cache) => cache.hasSynced),
    async stop() {
      await Promise.all([...caches.values()].map((cache) => cache.stop()));
    },
  };
}
