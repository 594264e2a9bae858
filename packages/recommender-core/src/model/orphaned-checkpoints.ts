import type { VerticalPodAutoscalerCheckpoint } from '@tandem/vpa-api';
import { objectKey } from './object-key.js';

/**
 * The checkpoints whose VPA no longer exists, which upstream deletes every
 * `--checkpoints-gc-interval`. `existingVpaKeys` must hold every VPA of the cluster, whatever
 * recommender it names: another recommender's history is not ours to delete. Checkpoints in
 * ignored namespaces are left alone too.
 */
export function orphanedCheckpoints(
  checkpoints: readonly VerticalPodAutoscalerCheckpoint[],
  existingVpaKeys: ReadonlySet<string>,
  ignoredNamespaces: readonly string[] = [],
): VerticalPodAutoscalerCheckpoint[] {
  return checkpoints.filter((checkpoint) => {
    const namespace = checkpoint.metadata?.namespace ?? '';
    if (ignoredNamespaces.includes(namespace)) return false;
    return !existingVpaKeys.has(
      objectKey(namespace, checkpoint.spec?.vpaObjectName ?? ''),
    );
  });
}
