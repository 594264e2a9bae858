import {
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { describeError, hasStatusCause, httpStatusOf } from '@tandem/kube';
import type { UpdaterPod } from '@tandem/update-decisions';
import type { PodActions } from '@tandem/updater-core';

const NODE_CAPACITY_CAUSE = 'NodeCapacity';

export function kubePodActions(kubeConfig: KubeConfig): PodActions {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
  const where = (pod: UpdaterPod) => ({
    name: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? '',
  });
  return {
    async evict(pod) {
      try {
        await core.createNamespacedPodEviction({
          ...where(pod),
          body: {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: where(pod),
          },
        });
        return { outcome: 'evicted' };
      } catch (error) {
        const status = httpStatusOf(error);
        if (status === undefined) throw error;
        const message = describeError(error);
        if (status === 429) return { outcome: 'blocked-by-budget', message };
        if (status === 404) return { outcome: 'gone', message };
        return { outcome: 'failed', message };
      }
    },
    async resize(pod, patch) {
      try {
        await core.patchNamespacedPodResize(
          { ...where(pod), body: patch },
          jsonPatch,
        );
        return { outcome: 'resized' };
      } catch (error) {
        const status = httpStatusOf(error);
        if (status === undefined) throw error;
        const message = describeError(error);
        if (status === 404) return { outcome: 'gone', message };
        if (status === 403 && hasStatusCause(error, NODE_CAPACITY_CAUSE))
          return { outcome: 'infeasible', message };
        return { outcome: 'failed', message };
      }
    },
    async annotate(pod, patch) {
      await core.patchNamespacedPod({ ...where(pod), body: patch }, jsonPatch);
    },
  };
}
