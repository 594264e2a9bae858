import {
  ConditionType,
  type ObjectMeta,
  type VerticalPodAutoscaler,
  VPA_API_VERSION,
  VPA_CHECKPOINT_KIND,
  type VerticalPodAutoscalerCheckpoint,
} from '@tandem/vpa-api';
import {
  encodeStrategyState,
  STRATEGY_STATE_ANNOTATION,
} from '@tandem/strategies';
import type { AggregateContainerState } from '@tandem/estimators';
import type { ClusterModel } from './cluster-model.js';
import type { TrackedVpa } from './tracked-vpa.js';

/**
 * The checkpoints to store for one VPA at `nowMs`, one per container name, sorted by name:
 * `<vpa>-<container>` holding the merged history (including the history loaded at
 * start-up). None while the VPA has a FetchingHistory condition: its history is still being
 * loaded, and saving it would overwrite a fuller checkpoint. The peaks of the memory windows still open in live containers are left out:
 * the restored containers would file them again, giving two peaks for one window. The
 * model is not changed.
 */
export function checkpointsForVpa(
  model: ClusterModel,
  vpaKey: string,
  nowMs: number,
): VerticalPodAutoscalerCheckpoint[] {
  const vpa = model.vpa(vpaKey);
  if (vpa === undefined || isFetchingHistory(vpa.object)) return [];
  // Lent aggregates: each is saved into its checkpoint before this returns.
  return model.lendMergedAggregatesForVpa(vpaKey, (merged) =>
    checkpointsOf(model, vpa, merged, nowMs),
  );
}

function checkpointsOf(
  model: ClusterModel,
  vpa: TrackedVpa,
  merged: ReadonlyMap<string, AggregateContainerState>,
  nowMs: number,
): VerticalPodAutoscalerCheckpoint[] {
  model.forEachLiveContainerOfVpa(vpa.key, (containerName, state, clock) => {
    const aggregate = merged.get(containerName);
    // The window is on the container's history clock when its strategy keeps one.
    if (
      aggregate !== undefined &&
      (clock?.at(nowMs) ?? nowMs) < state.windowEndMs
    ) {
      aggregate.subtractMemoryPeak(state.windowEndMs, state.currentPeakBytes);
    }
  });
  return [...merged.keys()].sort().map((containerName) => ({
    apiVersion: VPA_API_VERSION,
    kind: VPA_CHECKPOINT_KIND,
    metadata: checkpointMetadata(vpa, containerName),
    spec: { vpaObjectName: vpa.name, containerName },
    status: merged.get(containerName)?.saveCheckpoint(nowMs),
  }));
}

/**
 * A strategy's own state rides in an annotation: upstream reads only spec and status.
 * Without one the metadata is built as it is, not spread from an empty object (200,000
 * checkpoints a cycle at 100,000 VPAs).
 */
function checkpointMetadata(
  vpa: TrackedVpa,
  containerName: string,
): ObjectMeta {
  const name = `${vpa.name}-${containerName}`;
  const live = vpa.strategy.live.get(containerName);
  if (live === undefined || live.state.empty)
    return { name, namespace: vpa.namespace };
  return {
    name,
    namespace: vpa.namespace,
    annotations: {
      [STRATEGY_STATE_ANNOTATION]: encodeStrategyState(
        live.strategy,
        live.state,
      ),
    },
  };
}

function isFetchingHistory(vpa: VerticalPodAutoscaler): boolean {
  return (vpa.status?.conditions ?? []).some(
    (condition) => condition.type === ConditionType.FetchingHistory,
  );
}
