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
  | 'failed'
  | NotLeading;

/** How the API server answered a patch of the pod's `resize` subresource. */
export type ResizeOutcome =
  | 'resized'
  /** 403 with cause NodeCapacity: the node can never hold the new size. */
  | 'infeasible'
  | 'gone'
  | 'failed'
  | NotLeading;

/** Not sent: this replica no longer holds the Lease (see `LeadershipGuard`). */
type NotLeading = 'not-leading';

export interface ActionResult<Outcome> {
  outcome: Outcome;
  /** The API server's words when it refused. */
  message?: string;
}

/** A JSON Patch `remove`: the boost annotations go once the boost is over. */
export interface RemoveOperation {
  op: 'remove';
  path: string;
}

/** The three writes the updater makes to pods. `--dry-run` swaps in `dryRunActions`. */
export interface PodActions {
  evict(pod: UpdaterPod): Promise<ActionResult<EvictionOutcome>>;
  resize(
    pod: UpdaterPod,
    patch: readonly AddOperation[],
  ): Promise<ActionResult<ResizeOutcome>>;
  /**
   * Upstream's second, plain patch after a resize: `vpaInPlaceUpdated: "true"`, and after an
   * unboost the removal of its `vpaCpuStartupBoost/<container>` annotations.
   */
  annotate(
    pod: UpdaterPod,
    patch: readonly (AddOperation | RemoveOperation)[],
  ): Promise<void>;
}

/** Actions that change nothing: every eviction and resize is taken as accepted. */
export const dryRunActions: PodActions = {
  evict: async () => ({ outcome: 'evicted' }),
  resize: async () => ({ outcome: 'resized' }),
  annotate: async () => undefined,
};
