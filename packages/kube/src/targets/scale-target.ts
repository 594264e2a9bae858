import { parseLabelSelector } from '@tandem/vpa-api';
import { httpStatusOf } from '../api-errors.js';
import type { GetJson } from '../kube-get.js';
import { TtlCache } from '../ttl-cache.js';
import { groupVersionPath, type TargetObject } from './well-known-kinds.js';

/**
 * How long a discovery document and a scale subresource are reused. Upstream keeps scale
 * subresources for up to 10 minutes; one minute (one default recommender interval) still
 * turns a GET per VPA per cycle into one per minute, while a changed selector or a CRD
 * installed after its VPA is seen within about one cycle instead of ten.
 */
export const SCALE_TTL_MS = 60_000;

/** A discovery document: `GET /apis/<group>/<version>` (or `/api/v1`). */
export interface ApiResourceList {
  resources?: { name: string; kind: string }[];
}

/** The `autoscaling/v1` Scale, as far as target resolution reads it. */
interface Scale {
  metadata?: { ownerReferences?: TargetObject['ownerReferences'] };
  status?: { selector?: string };
}

export interface ScaleTargetRef {
  apiVersion?: string;
  kind: string;
  name: string;
}

/** The kind is served by no resource with a `scale` subresource (or not served at all). */
export class NotScalableError extends Error {
  override readonly name = 'NotScalableError';
}

/**
 * The resource serving `kind` in a discovery document, provided it has a `scale`
 * subresource; throws `NotScalableError` with the reason otherwise.
 */
export function scalableResource(
  list: ApiResourceList,
  kind: string,
  apiVersion: string,
): string {
  const resources = list.resources ?? [];
  const resource = resources.find(
    (candidate) => candidate.kind === kind && !candidate.name.includes('/'),
  );
  if (resource === undefined)
    throw new NotScalableError(
      `the API server serves no kind ${kind} in ${apiVersion}`,
    );
  if (
    !resources.some((candidate) => candidate.name === `${resource.name}/scale`)
  )
    throw new NotScalableError(
      `${kind} in ${apiVersion} is neither a well-known controller nor has a scale subresource`,
    );
  return resource.name;
}

/**
 * Reads targets of any kind with a scale subresource, as upstream does for kinds it does
 * not know: discovery finds the resource, the scale's `status.selector` gives the pods.
 * Resolves undefined when the target does not exist; throws with the reason when it
 * cannot be read. Only successful reads are cached, so a failure is retried next cycle.
 */
export function scaleTargets({
  get,
  ttlMs = SCALE_TTL_MS,
  now = Date.now,
}: {
  get: GetJson;
  ttlMs?: number;
  now?: () => number;
}): (
  ref: ScaleTargetRef,
  namespace: string,
) => Promise<TargetObject | undefined> {
  const discovery = new TtlCache<ApiResourceList>(ttlMs, now);
  const scales = new TtlCache<Scale>(ttlMs, now);

  const discover = async (
    apiVersion: string,
  ): Promise<{ path: string; list: ApiResourceList }> => {
    const slash = apiVersion.indexOf('/');
    const path =
      slash < 0
        ? groupVersionPath('', apiVersion)
        : groupVersionPath(
            apiVersion.slice(0, slash),
            apiVersion.slice(slash + 1),
          );
    let list = discovery.get(path);
    if (list === undefined) {
      try {
        list = (await get(path)) as ApiResourceList;
      } catch (error) {
        if (httpStatusOf(error) === 404)
          throw new NotScalableError(
            `the API server does not serve ${apiVersion}`,
          );
        throw error;
      }
      discovery.set(path, list);
    }
    return { path, list };
  };

  return async ({ apiVersion, kind, name }, namespace) => {
    if (apiVersion === undefined || apiVersion === '')
      throw new Error(
        `targetRef has no apiVersion, which kind ${kind} needs: only well-known controllers are found by kind alone`,
      );
    const groupVersion = await discover(apiVersion);
    const resource = scalableResource(groupVersion.list, kind, apiVersion);
    const path = `${groupVersion.path}/namespaces/${namespace}/${resource}/${name}/scale`;
    let scale = scales.get(path);
    if (scale === undefined) {
      try {
        scale = (await get(path)) as Scale;
      } catch (error) {
        if (httpStatusOf(error) === 404) return undefined;
        throw error;
      }
      scales.set(path, scale);
    }
    const text = scale.status?.selector ?? '';
    let selector;
    try {
      // An empty selector would select every pod of the namespace: upstream refuses it too.
      selector = text.trim() === '' ? undefined : parseLabelSelector(text);
    } catch (error) {
      throw new Error(
        `${kind} ${namespace}/${name} has an invalid scale status.selector ${JSON.stringify(text)}: ${(error as Error).message}`,
      );
    }
    // Upstream also takes the owners from the Scale. The API server copies only name,
    // namespace, uid and versions into it today, so for these targets the parent-controller
    // rule holds only if that changes; reading the object itself would need `get` on every
    // resource of every group.
    return { ownerReferences: scale.metadata?.ownerReferences, selector };
  };
}
