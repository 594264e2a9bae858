import { parseLabelSelector } from '@tandem/vpa-api';
import { httpStatusOf } from '../api-errors.js';
import type { GetJson } from '../connection/kube-request.js';
import { LoopStop } from '../loop-stop.js';
import { TtlCache } from '../ttl-cache.js';
import {
  ScaleCache,
  SCALE_CACHE_LOOP_PERIOD_MS,
  type ScaleCacheTimings,
} from './scale-cache.js';
import { groupVersionPath, type TargetObject } from './well-known-kinds.js';

/**
 * How long a discovery document is reused. Upstream's REST mapper forgets discovery every
 * 5 minutes; one minute (one default recommender interval) costs a GET per group version
 * and minute, and a kind a CRD adds to a served group version is seen within about a cycle.
 */
export const DISCOVERY_TTL_MS = 60_000;

/** A discovery document: `GET /apis/<group>/<version>` (or `/api/v1`). */
export interface ApiResourceList {
  resources?: { name: string; kind: string }[];
}

/** The `autoscaling/v1` Scale, as far as target resolution and the updater read it. */
interface Scale {
  metadata?: { ownerReferences?: TargetObject['ownerReferences'] };
  spec?: { replicas?: number };
  status?: { selector?: string };
}

export interface ScaleTargetRef {
  apiVersion?: string;
  kind: string;
  name: string;
}

/** The kind is served by no resource with a `scale` subresource (or not served at all). */
export class NotScalableError extends Error {
  override readonly name: string = 'NotScalableError';
}

/**
 * The kind (or its whole group version) is not served at all. Upstream's REST mapper fails
 * on it, which ends an owner-chain walk with an error (`getParentOfController` in
 * `pkg/target/controller_fetcher/controller_fetcher.go`), whereas a served kind without
 * `/scale` just ends the chain.
 */
export class KindNotServedError extends NotScalableError {
  override readonly name = 'KindNotServedError';
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
    throw new KindNotServedError(
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

/** A scale GET's answer as cached: the Scale (undefined: no such target) or the error. */
type ScaleAnswer =
  | { ok: true; scale: Scale | undefined }
  | { ok: false; error: unknown };

export interface ScaleTargets {
  /**
   * The target of any kind with a scale subresource: undefined when it does not exist;
   * throws with the reason when it cannot be read.
   */
  read(
    ref: ScaleTargetRef,
    namespace: string,
  ): Promise<TargetObject | undefined>;
  /**
   * The target's configured replicas (`spec.replicas` of its Scale), read now, past the
   * cache: the updater's eviction budget must not use a count 10–20 minutes old. Undefined
   * when the target does not exist; throws like `read` when it cannot be read.
   */
  replicas(ref: ScaleTargetRef, namespace: string): Promise<number | undefined>;
  /** One pass of the background loop: GETs stale entries again, drops unread ones. */
  refreshStale(): Promise<void>;
  /** Ends the background loop (lookups still GET what is not cached); resolves when ended. */
  stop(): Promise<void>;
}

/**
 * Reads targets of any kind with a scale subresource, as upstream does for kinds it does
 * not know: discovery finds the resource, the scale's `status.selector` gives the pods.
 * Scale GETs are cached as upstream caches them (`ScaleCache`): a target's first lookup
 * GETs it at once; after that lookups are answered from the cache, errors included, and a
 * background loop (started by the first lookup, every `loopPeriodMs`) GETs entries again
 * once they are no longer fresh, so a cycle makes no scale GETs of its own.
 */
export function scaleTargets({
  get,
  timings,
  loopPeriodMs = SCALE_CACHE_LOOP_PERIOD_MS,
  discoveryTtlMs = DISCOVERY_TTL_MS,
  now = Date.now,
  random = Math.random,
}: {
  get: GetJson;
  timings?: ScaleCacheTimings;
  loopPeriodMs?: number;
  discoveryTtlMs?: number;
  now?: () => number;
  random?: () => number;
}): ScaleTargets {
  const discovery = new TtlCache<ApiResourceList>(discoveryTtlMs, now);
  const scales = new ScaleCache<ScaleAnswer>({ timings, now, random });
  const loop = new LoopStop();
  let running: Promise<void> | undefined;

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
          throw new KindNotServedError(
            `the API server does not serve ${apiVersion}`,
          );
        throw error;
      }
      discovery.set(path, list);
    }
    return { path, list };
  };

  const fetchScale = async (path: string): Promise<ScaleAnswer> => {
    try {
      return { ok: true, scale: (await get(path)) as Scale };
    } catch (error) {
      if (httpStatusOf(error) === 404) return { ok: true, scale: undefined };
      return { ok: false, error };
    }
  };

  const refreshStale = async () => {
    for (const path of scales.keysToRefresh()) {
      if (loop.stopped) return;
      scales.refresh(path, await fetchScale(path));
    }
    scales.removeExpired();
  };

  const startLoop = () => {
    if (running !== undefined || loop.stopped) return;
    running = (async () => {
      for (;;) {
        await loop.sleep(loopPeriodMs);
        if (loop.stopped) return;
        await refreshStale();
      }
    })();
  };

  const scaleAt = async (path: string): Promise<ScaleAnswer> => {
    const cached = scales.get(path);
    if (cached.found) return cached.value;
    const answer = await fetchScale(path);
    scales.insert(path, answer);
    startLoop();
    return answer;
  };

  /** The path of the target's `scale` subresource, from its group version's discovery. */
  const scalePath = async (
    { apiVersion, kind, name }: ScaleTargetRef,
    namespace: string,
  ): Promise<string> => {
    if (apiVersion === undefined || apiVersion === '')
      throw new Error(
        `targetRef has no apiVersion, which kind ${kind} needs: only well-known controllers are found by kind alone`,
      );
    const groupVersion = await discover(apiVersion);
    const resource = scalableResource(groupVersion.list, kind, apiVersion);
    return `${groupVersion.path}/namespaces/${namespace}/${resource}/${name}/scale`;
  };

  const read = async (
    ref: ScaleTargetRef,
    namespace: string,
  ): Promise<TargetObject | undefined> => {
    const { kind, name } = ref;
    const answer = await scaleAt(await scalePath(ref, namespace));
    if (!answer.ok) throw answer.error;
    const { scale } = answer;
    if (scale === undefined) return undefined;
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

  const replicas = async (
    ref: ScaleTargetRef,
    namespace: string,
  ): Promise<number | undefined> => {
    const answer = await fetchScale(await scalePath(ref, namespace));
    if (!answer.ok) throw answer.error;
    return answer.scale?.spec?.replicas;
  };

  return {
    read,
    replicas,
    refreshStale,
    async stop() {
      loop.stop();
      await running;
    },
  };
}
