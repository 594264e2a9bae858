import {
  DEFERRED_RESIZE_TIMEOUT_MS,
  IN_PROGRESS_RESIZE_TIMEOUT_MS,
} from './defaults.js';
import type { ResizeState } from './resize-state.js';

export interface ResizeFallback {
  action: 'wait' | 'fall-back-to-eviction';
  reason: string;
}

/**
 * InPlaceOrRecreate's verdict on a pod whose resize has not finished (upstream
 * `CanEvictInPlacingPod`, budget aside): evict when the kubelet says Infeasible or Error or
 * something unknown, when it has deferred the resize for more than 5 minutes, or when the
 * resize has been in progress for more than an hour; wait otherwise.
 *
 * Upstream times the resize from when its updater first saw it (an in-memory map); here the
 * condition's `lastTransitionTime` is used, so a restart does not reset the clock. Without
 * one the resize is taken to have started now.
 */
export function resizeFallback(state: ResizeState, now: Date): ResizeFallback {
  const elapsedMs = now.getTime() - (state.sinceMs ?? now.getTime());
  switch (state.status) {
    case 'None':
      return { action: 'wait', reason: 'no resize is pending or in progress' };
    case 'Deferred':
      return timedOut(elapsedMs, DEFERRED_RESIZE_TIMEOUT_MS, 'deferred');
    case 'InProgress':
      return timedOut(elapsedMs, IN_PROGRESS_RESIZE_TIMEOUT_MS, 'in progress');
    case 'Infeasible':
      return evict('the node cannot accommodate the resize (Infeasible)');
    case 'Error':
      return evict('the kubelet reported an error applying the resize');
    case 'Unknown':
      return evict('the resize conditions are not ones the updater knows');
  }
}

function timedOut(
  elapsedMs: number,
  timeoutMs: number,
  what: string,
): ResizeFallback {
  const limit = `${timeoutMs / 60_000}m`;
  return elapsedMs > timeoutMs
    ? evict(`the resize has been ${what} for more than ${limit}`)
    : { action: 'wait', reason: `the resize is ${what} (for up to ${limit})` };
}

function evict(reason: string): ResizeFallback {
  return { action: 'fall-back-to-eviction', reason };
}
