import {
  ControlledValues,
  DEFAULT_CONTAINER_POLICY_NAME,
  ResourceName,
  UpdateMode,
  type ContainerResourcePolicy,
  type VerticalPodAutoscaler,
} from './types.js';

/** What a container policy controls when it does not say: both CPU and memory. */
export const DEFAULT_CONTROLLED_RESOURCES: readonly string[] = Object.freeze([
  ResourceName.cpu,
  ResourceName.memory,
]);

/**
 * The policy that governs `containerName`: the one naming it exactly, else the `*` policy,
 * else none. With several `*` policies the last one wins, as upstream's lookup keeps
 * overwriting its default while it scans for an exact match.
 */
export function getContainerPolicy(
  vpa: VerticalPodAutoscaler,
  containerName: string,
): ContainerResourcePolicy | undefined {
  const policies = vpa.spec.resourcePolicy?.containerPolicies ?? [];
  return (
    policies.find((policy) => policy.containerName === containerName) ??
    policies.findLast(
      (policy) => policy.containerName === DEFAULT_CONTAINER_POLICY_NAME,
    )
  );
}

/** Resources the policy lets the VPA recommend. An explicit empty list controls nothing. */
export function getControlledResources(
  policy: ContainerResourcePolicy | undefined,
): readonly string[] {
  return policy?.controlledResources ?? DEFAULT_CONTROLLED_RESOURCES;
}

/** Whether the VPA sets requests only, or requests and (proportionally) limits. */
export function getControlledValues(
  policy: ContainerResourcePolicy | undefined,
): ControlledValues {
  return policy?.controlledValues ?? ControlledValues.RequestsAndLimits;
}

/** The VPA's update mode; Recreate when unset or empty. */
export function getUpdateMode(vpa: VerticalPodAutoscaler): UpdateMode {
  return vpa.spec.updatePolicy?.updateMode || UpdateMode.Recreate;
}
