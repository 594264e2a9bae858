import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { httpStatusOf } from '@tandem/kube';
import { acquiredLeaseSpec } from '@tandem/kube/clients';

/** How long the updater trusts a renewal (its `--admission-controller-status-lease-timeout`). */
const STATUS_LEASE_DURATION_MS = 60_000;

/**
 * Upstream's admission-controller status: a Lease renewed every few seconds, which the
 * updater reads as "the webhook is alive, so evicted pods will get their recommendation".
 * Every replica renews it; whoever wrote last is the holder.
 */
export function statusLease(
  kubeConfig: KubeConfig,
  {
    name,
    namespace,
    holder,
  }: { name: string; namespace: string; holder: string },
): { renew(nowMs: number): Promise<void> } {
  const api = kubeConfig.makeApiClient(CoordinationV1Api);
  return {
    async renew(nowMs) {
      try {
        const current = await api.readNamespacedLease({ name, namespace });
        await api.replaceNamespacedLease({
          name,
          namespace,
          body: {
            ...current,
            spec: acquiredLeaseSpec(
              current.spec,
              holder,
              nowMs,
              STATUS_LEASE_DURATION_MS,
            ),
          },
        });
      } catch (error) {
        if (httpStatusOf(error) !== 404) throw error;
        await api.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: acquiredLeaseSpec(
              undefined,
              holder,
              nowMs,
              STATUS_LEASE_DURATION_MS,
            ),
          },
        });
      }
    },
  };
}
