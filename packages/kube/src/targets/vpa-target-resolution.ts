import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { VerticalPodAutoscaler, VpaTarget } from '@tandem/vpa-api';
import { kubeGetJson, type GetJson } from '../kube-get.js';
import type { WatchLike } from '../list-watch-cache.js';
import { scaleTargets } from './scale-target.js';
import { targetCaches } from './target-caches.js';
import { targetResolver } from './target-resolver.js';
import type { WellKnownKind } from './well-known-kinds.js';

export interface VpaTargetResolution {
  /** The VPA's target selector, or why it is unsupported; never throws for a bad target. */
  resolve(vpa: VerticalPodAutoscaler): Promise<VpaTarget>;
  /** A well-known controller from the same caches (undefined when it does not exist). */
  controller(
    kind: WellKnownKind,
    namespace: string,
    name: string,
  ): Promise<KubernetesObject | undefined>;
  /** True when every target cache started so far has completed its first list (readiness). */
  hasSynced(): boolean;
  /**
   * Stops the target caches and the scale cache's background refresh; `resolve` then
   * reports every well-known target unreadable.
   */
  stop(): Promise<void>;
}

/**
 * Target caches + scale reader + resolver in one: resolve(vpa) → VpaTarget, hasSynced(), stop().
 * Well-known controllers come from lazily started list+watch caches (in `namespace`, or
 * cluster-wide when undefined), any other kind through its `scale` subresource (GET on first
 * use, then cached and refreshed in the background as upstream does: `scaleTargets`).
 * `onError` hears the caches' recovered errors, with the kind.
 */
export function vpaTargetResolution(options: {
  kubeConfig: KubeConfig;
  namespace: string | undefined;
  onError: (kind: string, error: unknown) => void;
  /** Default: `kubeGetJson(kubeConfig)`. */
  get?: GetJson;
  /** A `Watch` replacement for tests; default: client-node's, from `kubeConfig`. */
  watch?: WatchLike;
}): VpaTargetResolution {
  const { kubeConfig, namespace, onError, watch } = options;
  const get = options.get ?? kubeGetJson(kubeConfig);
  const caches = targetCaches({ kubeConfig, get, namespace, onError, watch });
  const scales = scaleTargets({ get });
  const resolve = targetResolver({
    wellKnown: caches.read,
    scalable: scales.read,
  });
  return {
    resolve,
    controller: caches.object,
    hasSynced: caches.hasSynced,
    async stop() {
      await Promise.all([caches.stop(), scales.stop()]);
    },
  };
}
