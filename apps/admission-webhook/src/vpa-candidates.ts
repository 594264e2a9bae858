import type {
  LabelSelector,
  VerticalPodAutoscaler,
  VpaTarget,
} from '@tandem/vpa-api';

/**
 * The VPAs of one namespace with the pod selector of each one's target, as the admission
 * decision takes them; a VPA whose target cannot be resolved comes with no selector and
 * so matches no pod. Target lookups come from caches: no API call on the review path
 * unless a kind is met for the first time.
 */
export async function vpaCandidates(
  vpasOfNamespace: readonly VerticalPodAutoscaler[],
  resolve: (vpa: VerticalPodAutoscaler) => Promise<VpaTarget>,
): Promise<
  { vpa: VerticalPodAutoscaler; selector: LabelSelector | undefined }[]
> {
  return Promise.all(
    vpasOfNamespace.map(async (vpa) => {
      const target = await resolve(vpa);
      return {
        vpa,
        selector: 'selector' in target ? target.selector : undefined,
      };
    }),
  );
}
