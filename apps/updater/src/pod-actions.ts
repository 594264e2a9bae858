import {
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { describeError, hasStatusCause, httpStatusOf } from '@tandem/kube';
import type { AddOperation } from '@tandem/admission';
import type { UpdaterPod } from '@tandem/update-decisions';

/** How the API server answered an eviction. */
export type EvictionOutcome =
  /** The pod is being deleted; its owner makes a new one, which the webhook sizes. */
  | 'evicted'
  /** 429: a PodDisruptionBudget does not allow it now. Normal; the next cycle retries. */
  | 'blocked-by-budget'
  /** 404: the pod went away during the cycle. */
  | 'gone'
  | 'failed';

/** How the API server answered a patch of the pod's `resize` subresource. */
export type ResizeOutcome =
  | 'resized'
  /** 403 with cause NodeCapacity: the node can never hold the new size. */
  | 'infeasible'
  | 'gone'
  | 'failed';

export interface ActionResult<Outcome> {
  outcome: Outcome;
  /** The API server's words when it refused. */
  message?: string;
}

/** The three writes the updater makes to pods. `--dry-run` swaps in `dryRunActions`. */
export interface PodActions {
  evict(pod: UpdaterPod): Promise<ActionResult<EvictionOutcome>>;
  resize(
    pod: UpdaterPod,
    patch: readonly AddOperation[],
  ): Promise<ActionResult<ResizeOutcome>>;
  /** Upstream's second, plain patch after a resize: `vpaInPlaceUpdated: "true"`. */
  annotate(pod: UpdaterPod, patch: readonly AddOperation[]): Promise<void>;
}

const NODE_CAPACITY_CAUSE = 'NodeCapacity';

export function kubePodActions(kubeConfig: KubeConfig): PodActions {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
  const where = (pod: UpdaterPod) => ({
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? '',
  });
  return {
    async evict(pod) {
      try {
        await core.createNamespacedPodEviction({
          ...where(pod),
          body: {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: where(pod),
          },
        });
        return { outcome: 'evicted' };
      } catch (error) {
        const status = httpStatusOf(error);
        if (status === undefined) throw error;
        const message = describeError(error);
        if (status === 429) return { outcome: 'blocked-by-budget', message };
        if (status === 404) return { outcome: 'gone', message };
        return { outcome: 'failed', message };
      }
    },
    async resize(pod, patch) {
      try {
        await core.patchNamespacedPodResize(
          { ...where(pod), body: patch },
          jsonPatch,
        );
        return { outcome: 'resized' };
      } catch (error) {
        const status = httpStatusOf(error);
        if (status === undefined) throw error;
        const message = describeError(error);
        if (status === 404) return { outcome: 'gone', message };
        if (status === 403 && hasStatusCause(error, NODE_CAPACITY_CAUSE))
          return { outcome: 'infeasible', message };
        return { outcome: 'failed', message };
      }
    },
    async annotate(pod, patch) {
      await core.patchNamespacedPod({ ...where(pod), body: patch }, jsonPatch);
    },
  };
}

/** Actions that change nothing: every eviction and resize is taken as accepted. */
export const dryRunActions: PodActions = {
  evict: async () => ({ outcome: 'evicted' }),
  resize: async () => ({ outcome: 'resized' }),
  annotate: async () => undefined,
};
