import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  VPA_API_GROUP,
  VPA_CHECKPOINT_PLURAL,
  VPA_PLURAL,
  VPA_VERSION,
  type VerticalPodAutoscaler,
  type VerticalPodAutoscalerCheckpoint,
  type VerticalPodAutoscalerStatus,
} from '@tandem/vpa-api';
import { httpStatusOf } from './api-errors.js';

/**
 * The `autoscaling.k8s.io/v1` VerticalPodAutoscalers and checkpoints, read and written as the
 * recommender does; the e2e harness uses the same client. Its status and checkpoint writes
 * are, method for method, the recommender's `VpaStore`.
 */
export interface VpaClient {
  readVpa(namespace: string, name: string): Promise<VerticalPodAutoscaler>;
  createVpa(
    namespace: string,
    vpa: VerticalPodAutoscaler,
  ): Promise<VerticalPodAutoscaler>;
  /** JSON Patch `add /status` on the VPA's status subresource. */
  writeStatus(
    namespace: string,
    name: string,
    status: VerticalPodAutoscalerStatus,
  ): Promise<void>;
  /** The checkpoint, or undefined when there is none. */
  readCheckpoint(
    namespace: string,
    name: string,
  ): Promise<VerticalPodAutoscalerCheckpoint | undefined>;
  createCheckpoint(
    namespace: string,
    checkpoint: VerticalPodAutoscalerCheckpoint,
  ): Promise<VerticalPodAutoscalerCheckpoint>;
  /**
   * JSON Patch `replace /status` on the checkpoint (in its `metadata.namespace`), or create
   * it when it does not exist.
   */
  writeCheckpoint(checkpoint: VerticalPodAutoscalerCheckpoint): Promise<void>;
  /** In one namespace, or in all when undefined. */
  listCheckpoints(
    namespace: string | undefined,
  ): Promise<VerticalPodAutoscalerCheckpoint[]>;
  /** Deletes the checkpoint; one already gone is not an error. */
  deleteCheckpoint(namespace: string, name: string): Promise<void>;
}

const VPAS = { group: VPA_API_GROUP, version: VPA_VERSION, plural: VPA_PLURAL };
const CHECKPOINTS = {
  group: VPA_API_GROUP,
  version: VPA_VERSION,
  plural: VPA_CHECKPOINT_PLURAL,
};

export function vpaClient(kubeConfig: KubeConfig): VpaClient {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const createCheckpoint = async (
    namespace: string,
    checkpoint: VerticalPodAutoscalerCheckpoint,
  ) =>
    (await api.createNamespacedCustomObject({
      ...CHECKPOINTS,
      namespace,
      body: checkpoint,
    })) as VerticalPodAutoscalerCheckpoint;
  return {
    async readVpa(namespace, name) {
      return (await api.getNamespacedCustomObject({
        ...VPAS,
        namespace,
        name,
      })) as VerticalPodAutoscaler;
    },
    async createVpa(namespace, vpa) {
      return (await api.createNamespacedCustomObject({
        ...VPAS,
        namespace,
        body: vpa,
      })) as VerticalPodAutoscaler;
    },
    async writeStatus(namespace, name, status) {
      await api.patchNamespacedCustomObjectStatus({
        ...VPAS,
        namespace,
        name,
        body: [{ op: 'add', path: '/status', value: status }],
      });
    },
    async readCheckpoint(namespace, name) {
      try {
        return (await api.getNamespacedCustomObject({
          ...CHECKPOINTS,
          namespace,
          name,
        })) as VerticalPodAutoscalerCheckpoint;
      } catch (error) {
        if (httpStatusOf(error) === 404) return undefined;
        throw error;
      }
    },
    createCheckpoint,
    async writeCheckpoint(checkpoint) {
      const namespace = checkpoint.metadata?.namespace ?? '';
      const name = checkpoint.metadata?.name ?? '';
      try {
        await api.patchNamespacedCustomObject({
          ...CHECKPOINTS,
          namespace,
          name,
          body: [
            { op: 'replace', path: '/status', value: checkpoint.status },
            // A strategy's state (Tandem's annotation): the recommender owns checkpoint
            // objects and upstream sets no annotations on them, so the map is written whole.
            ...(checkpoint.metadata?.annotations === undefined
              ? []
              : [
                  {
                    op: 'add',
                    path: '/metadata/annotations',
                    value: checkpoint.metadata.annotations,
                  },
                ]),
          ],
        });
      } catch (error) {
        if (httpStatusOf(error) !== 404) throw error;
        await createCheckpoint(namespace, checkpoint);
      }
    },
    async listCheckpoints(namespace) {
      const list = (
        namespace === undefined
          ? await api.listClusterCustomObject(CHECKPOINTS)
          : await api.listNamespacedCustomObject({ ...CHECKPOINTS, namespace })
      ) as { items: VerticalPodAutoscalerCheckpoint[] };
      return list.items;
    },
    async deleteCheckpoint(namespace, name) {
      try {
        await api.deleteNamespacedCustomObject({
          ...CHECKPOINTS,
          namespace,
          name,
        });
      } catch (error) {
        // Already gone (another replica, or a user) is what we wanted.
        if (httpStatusOf(error) !== 404) throw error;
      }
    },
  };
}
