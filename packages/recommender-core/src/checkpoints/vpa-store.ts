import type {
  VerticalPodAutoscalerCheckpoint,
  VerticalPodAutoscalerStatus,
} from '@tandem/vpa-api';

/** Reads and writes the recommender's two objects, the way upstream writes them. */
export interface VpaStore {
  /** JSON Patch `add /status` on the VPA's status subresource. */
  writeStatus(
    namespace: string,
    name: string,
    status: VerticalPodAutoscalerStatus,
  ): Promise<void>;
  /** JSON Patch `replace /status` on the checkpoint, or create it when it does not exist. */
  writeCheckpoint(checkpoint: VerticalPodAutoscalerCheckpoint): Promise<void>;
  listCheckpoints(
    namespace: string | undefined,
  ): Promise<VerticalPodAutoscalerCheckpoint[]>;
  deleteCheckpoint(namespace: string, name: string): Promise<void>;
}
