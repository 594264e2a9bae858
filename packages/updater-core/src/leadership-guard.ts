import type { EventRecorder } from '@tandem/kube';
import type { ActionResult, PodActions } from './pod-actions.js';

const NOT_SENT: ActionResult<'not-leading'> = {
  outcome: 'not-leading',
  message: 'the leader election Lease is lost: nothing was sent',
};

/**
 * One cycle's writes, each let through only if `stillLeading()` holds right before it is
 * sent, and none after the first refusal, whatever leadership says later: a replica that
 * lost the Lease mid-cycle (a pause, a partition) must not act beside its successor.
 * Upstream's updater exits when it stops leading (pkg/updater/main.go, OnStoppedLeading);
 * here the cycle ends instead. A refused eviction or resize answers `not-leading`, which
 * ends the VPA pass as a spent rate limiter does; a refused annotation or event is dropped,
 * as it only tells of a write already made.
 */
export class LeadershipGuard {
  private refused = false;

  constructor(private readonly stillLeading: () => boolean) {}

  /** Whether a write was refused: the cycle makes no further VPA passes. */
  get lost(): boolean {
    return this.refused;
  }

  actions(inner: PodActions): PodActions {
    return {
      evict: async (pod) => (this.mayWrite() ? inner.evict(pod) : NOT_SENT),
      resize: async (pod, patch) =>
        this.mayWrite() ? inner.resize(pod, patch) : NOT_SENT,
      annotate: async (pod, patch) => {
        if (this.mayWrite()) await inner.annotate(pod, patch);
      },
    };
  }

  recordEvent(inner: EventRecorder): EventRecorder {
    return (...event) => {
      if (this.mayWrite()) inner(...event);
    };
  }

  private mayWrite(): boolean {
    if (!this.refused && !this.stillLeading()) this.refused = true;
    return !this.refused;
  }
}
