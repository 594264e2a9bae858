import type { KubeConfig } from '@kubernetes/client-node';
import { vpaClient } from '@tandem/kube';
import type { VpaStore } from '@tandem/recommender-core';

/**
 * The cycle's writes through `@tandem/kube`'s VPA client (the one the e2e harness uses):
 * status `add /status`, checkpoints `replace /status` or create, deletes tolerating 404.
 */
export function vpaStore(kubeConfig: KubeConfig): VpaStore {
  return vpaClient(kubeConfig);
}
