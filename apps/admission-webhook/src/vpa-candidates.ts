import type { KubernetesObject } from '@kubernetes/client-node';
import type { VpaCandidate } from '@tandem/admission';
import type { ListWatchCache, VpaTargetResolution } from '@tandem/kube';
import type { VerticalPodAutoscaler } from '@tandem/vpa-api';

/**
 * The VPAs of one namespace with the pod selector of each one's target, as the admission
 * decision takes them; a VPA whose target cannot be resolved comes with no selector and
 * so matches no pod. Target lookups come from caches: no API call on the review path
 * unless a kind is met for the first time. Rejects with `ColdCacheError` when a target
 * kind's cache has not completed its first list within the resolution's sync timeout
 * (`--cache-sync-deadline`), rather than resolving that target as unreadable: the pod
 * must then be admitted unchanged with a warning, not silently as matched by no VPA.
 */
export async function vpaCandidates(
  vpasOfNamespace: readonly VerticalPodAutoscaler[],
  targets: Pick<VpaTargetResolution, 'resolve' | 'cachesSynced'>,
): Promise<VpaCandidate[]> {
  await targets.cachesSynced(
    vpasOfNamespace.map((vpa) => vpa.spec?.targetRef?.kind ?? ''),
  );
  return Promise.all(
    vpasOfNamespace.map(async (vpa) => {
      const target = await targets.resolve(vpa);
      return {
        vpa,
        selector: 'selector' in target ? target.selector : undefined,
      };
    }),
  );
}

/**
 * Starts the target caches a review will need as soon as the VPA cache shows a VPA
 * targeting their kind (a Deployment's pods need the Deployment and ReplicaSet caches), so
 * they list before that VPA's pods arrive, and readiness waits for them. VPAs of ignored
 * namespaces are never matched, so they start nothing.
 */
export function warmTargetCaches(
  vpas: Pick<ListWatchCache<KubernetesObject>, 'onEvent'>,
  targets: Pick<VpaTargetResolution, 'warmUp'>,
  ignoredNamespaces: ReadonlySet<string>,
): void {
  vpas.onEvent((event) => {
    if (event.type === 'delete') return;
    const vpa = event.object as unknown as VerticalPodAutoscaler;
    if (ignoredNamespaces.has(vpa.metadata?.namespace ?? '')) return;
    targets.warmUp([vpa.spec?.targetRef?.kind ?? '']);
  });
}
