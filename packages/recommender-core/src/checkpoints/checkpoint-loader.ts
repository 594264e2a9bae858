import { setTimeout as sleep } from 'node:timers/promises';
import {
  backoffDelayMs,
  describeError,
  type EventRecorder,
} from '@tandem/kube';
import type { Logger } from '@tandem/telemetry';
import { STRATEGY_STATE_ANNOTATION } from '@tandem/strategies';
import { vpaReference } from '@tandem/vpa-api';
import { type ClusterModel, objectKey } from '../model/index.js';
import type { RecommenderMetrics } from '../recommender-metrics.js';
import type { VpaStore } from './vpa-store.js';
import { RecommenderEventReason } from '../event-reasons.js';

const CHECKPOINT_LIST_ATTEMPTS = 5;

export interface CheckpointLoaderOptions {
  model: ClusterModel;
  store: VpaStore;
  namespace: string | undefined;
  logger: Logger;
  metrics: RecommenderMetrics;
  recordEvent: EventRecorder;
}

/**
 * A term's start: history from the checkpoints of the VPAs this recommender handles (§4.1), our
 * own or upstream's (same format). A corrupt checkpoint costs only its own history: it is
 * skipped with a log line, a count and a Warning event on its VPA, and left in place for a
 * person to inspect until the next write replaces it.
 */
export async function loadCheckpoints(
  options: CheckpointLoaderOptions,
): Promise<void> {
  const { model, logger } = options;
  const checkpoints = await listWithRetries(options);
  let loaded = 0;
  for (const checkpoint of checkpoints) {
    const namespace = checkpoint.metadata?.namespace ?? '';
    const vpaName = checkpoint.spec?.vpaObjectName ?? '';
    const vpaKey = objectKey(namespace, vpaName);
    const vpa = model.vpa(vpaKey);
    if (vpa === undefined) continue;
    const result = model.loadCheckpoint(
      vpaKey,
      checkpoint.spec?.containerName ?? '',
      checkpoint.status,
      checkpoint.metadata?.annotations?.[STRATEGY_STATE_ANNOTATION],
    );
    if (result.ok) {
      loaded += 1;
      continue;
    }
    const name = checkpoint.metadata?.name ?? '';
    options.metrics.recoveredErrors.inc({ kind: 'checkpoint-load' });
    logger.warn(
      { checkpoint: name, vpa: vpaKey },
      `checkpoint skipped: ${result.error.message}`,
    );
    options.recordEvent(
      vpaReference(vpa.object),
      'Warning',
      RecommenderEventReason.CheckpointCorrupt,
      `Checkpoint ${name} was skipped and its history not loaded: ${result.error.message}`,
    );
  }
  logger.info({ loaded, listed: checkpoints.length }, 'checkpoints loaded');
}

/**
 * A freshly started API server can still answer 429/5xx for a few seconds: retry with
 * backoff. Then give up loudly: a term that started without the checkpoints would write
 * its thinner history over them, so the caller retries instead of cycling.
 */
async function listWithRetries(options: CheckpointLoaderOptions) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await options.store.listCheckpoints(options.namespace);
    } catch (error) {
      if (attempt === CHECKPOINT_LIST_ATTEMPTS)
        throw new Error(
          `checkpoints not loaded after ${attempt} attempts, so no cycle runs until they are: ${describeError(error)}`,
          { cause: error },
        );
      await sleep(backoffDelayMs(attempt, Math.random()));
    }
  }
}
