/** The `namespace/name` key pods and VPAs are tracked by, as upstream's PodID and VpaID. */
export function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
