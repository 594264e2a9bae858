import type { VerticalPodAutoscalerCheckpoint } from '@tandem/vpa-api';
import { checkpointsForVpa, type ClusterModel } from '../model/index.js';
import { drainQueue } from '../cycle/worker-pool.js';

export interface CheckpointWriterOptions {
  model: ClusterModel;
  nowMs: number;
  /** When each VPA's checkpoints were last all written; updated here, pruned of gone VPAs. */
  lastWrittenMs: Map<string, number>;
  /** `--update-worker-count`: VPAs written at once. */
  workers: number;
  /** True once the step's `--checkpoints-timeout` has passed. */
  deadlinePassed: () => boolean;
  /** False once the lease is lost: no further write starts, not even the first. */
  mayWrite: () => boolean;
  write: (checkpoint: VerticalPodAutoscalerCheckpoint) => Promise<void>;
  onWriteError: (
    checkpoint: VerticalPodAutoscalerCheckpoint,
    vpaKey: string,
    error: unknown,
  ) => void;
}

export interface CheckpointWriteResult {
  writes: number;
  /** VPAs the deadline left for the next cycle (they are first in line then). */
  vpasLeft: number;
}

/**
 * Upstream's MaintainCheckpoints: VPAs whose checkpoints are oldest go first (never written
 * counts as oldest), so a deadline that cuts a cycle short never starves the same VPAs; each
 * worker honours the deadline only after writing one VPA, so a slow API server still makes
 * progress. A VPA counts as written only when all its containers' checkpoints were.
 */
export async function writeCheckpoints(
  options: CheckpointWriterOptions,
): Promise<CheckpointWriteResult> {
  const { model, nowMs, lastWrittenMs } = options;
  const keys = model.vpaKeys();
  const live = new Set(keys);
  for (const key of lastWrittenMs.keys())
    if (!live.has(key)) lastWrittenMs.delete(key);
  // Upstream sorts by the time alone, unstably, VPAs taken from a map
  // (pkg/recommender/checkpoint/checkpoint_writer.go, getVpasToCheckpoint): equal times
  // come in no set order. Keys break the tie here, compared as code units: in a steady
  // cycle every VPA's time is the same, and localeCompare over 100,000 keys was 1 % of it.
  const order = keys.sort(
    (a, b) =>
      (lastWrittenMs.get(a) ?? -Infinity) -
        (lastWrittenMs.get(b) ?? -Infinity) || (a < b ? -1 : a > b ? 1 : 0),
  );
  let writes = 0;
  const writeVpa = async (key: string) => {
    let complete = true;
    for (const checkpoint of checkpointsForVpa(model, key, nowMs)) {
      if (!options.mayWrite()) return;
      try {
        await options.write(checkpoint);
        writes += 1;
      } catch (error) {
        complete = false;
        options.onWriteError(checkpoint, key, error);
      }
    }
    if (complete) lastWrittenMs.set(key, nowMs);
  };
  const taken = await drainQueue(
    order,
    options.workers,
    writeVpa,
    (done) => options.mayWrite() && (done === 0 || !options.deadlinePassed()),
  );
  return { writes, vpasLeft: order.length - taken };
}
