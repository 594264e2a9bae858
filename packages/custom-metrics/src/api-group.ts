/** The API group the HPA reads `Pods` and `Object` metrics from. */
export const CUSTOM_METRICS_GROUP = 'custom.metrics.k8s.io';

export type CustomMetricsVersion = 'v1beta1' | 'v1beta2';

/**
 * Served versions, preferred first: the HPA's client takes the group's preferred version
 * when it knows it, and v1beta2 is what current clients speak.
 */
export const CUSTOM_METRICS_VERSIONS: readonly CustomMetricsVersion[] = [
  'v1beta2',
  'v1beta1',
];

export function isCustomMetricsVersion(
  text: string,
): text is CustomMetricsVersion {
  return (CUSTOM_METRICS_VERSIONS as readonly string[]).includes(text);
}

/** `custom.metrics.k8s.io/<version>`, the apiVersion of the version's documents. */
export function groupVersion(version: CustomMetricsVersion): string {
  return `${CUSTOM_METRICS_GROUP}/${version}`;
}
