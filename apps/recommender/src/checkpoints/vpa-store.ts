import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { httpStatusOf } from '@tandem/kube';
import type { VpaStore } from '@tandem/recommender-core';
import type { VerticalPodAutoscalerCheckpoint } from '@tandem/vpa-api';

const GROUP = 'autoscaling.k8s.io';
const VERSION = 'v1';
const VPAS = 'verticalpodautoscalers';
const CHECKPOINTS = 'verticalpodautoscalercheckpoints';

export function vpaStore(kubeConfig: KubeConfig): VpaStore {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  return {
    async writeStatus(namespace, name, status) {
      await api.patchNamespacedCustomObjectStatus({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: VPAS,
        name,
        body: [{ op: 'add', path: '/status', value: status }],
      });
    },
    async writeCheckpoint(checkpoint) {
      const namespace = checkpoint.metadata?.namespace ?? '';
      const name = checkpoint.metadata?.name ?? '';
      try {
        await api.patchNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace,
          plural: CHECKPOINTS,
          name,
          body: [{ op: 'replace', path: '/status', value: checkpoint.status }],
        });
      } catch (error) {
        if (httpStatusOf(error) !== 404) throw error;
        await api.createNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace,
          plural: CHECKPOINTS,
          body: checkpoint,
        });
      }
    },
    async deleteCheckpoint(namespace, name) {
      try {
        await api.deleteNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace,
          plural: CHECKPOINTS,
          name,
        });
      } catch (error) {
        // Already gone (another replica, or a user) is what we wanted.
        if (httpStatusOf(error) !== 404) throw error;
      }
    },
    async listCheckpoints(namespace) {
      const base = { group: GROUP, version: VERSION, plural: CHECKPOINTS };
      const list = (
        namespace === undefined
          ? await api.listClusterCustomObject(base)
          : await api.listNamespacedCustomObject({ ...base, namespace })
      ) as { items: VerticalPodAutoscalerCheckpoint[] };
      return list.items;
    },
  };
}
