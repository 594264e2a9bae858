import type { VerticalPodAutoscaler } from '@tandem/vpa-api';

/** The recommender that serves VPAs naming no recommender (`--recommender-name` default). */
export const DEFAULT_RECOMMENDER_NAME = 'default';

export interface VpaSelectionOptions {
  /** `--recommender-name`. */
  readonly recommenderName: string;
  /** `--vpa-object-namespace`: only this namespace (unset or empty: all). */
  readonly namespace?: string;
  /** `--ignored-vpa-object-namespaces`. */
  readonly ignoredNamespaces?: readonly string[];
}

/**
 * The VPAs this recommender serves, in input order: the default recommender takes VPAs
 * with no `spec.recommenders` or naming it, any other recommender only those naming it;
 * then the namespace flags filter further.
 */
export function vpaSelection<T extends VerticalPodAutoscaler>(
  vpas: readonly T[],
  options: VpaSelectionOptions,
): T[] {
  const ignored = new Set(options.ignoredNamespaces ?? []);
  return vpas.filter((vpa) => {
    const namespace = vpa.metadata?.namespace ?? '';
    if (options.namespace && namespace !== options.namespace) return false;
    if (ignored.has(namespace)) return false;
    const recommenders = vpa.spec.recommenders ?? [];
    if (
      options.recommenderName === DEFAULT_RECOMMENDER_NAME &&
      recommenders.length === 0
    ) {
      return true;
    }
    return recommenders.some(({ name }) => name === options.recommenderName);
  });
}
