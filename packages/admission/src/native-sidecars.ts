import { gatedNativeSidecars, type FeatureGates } from '@tandem/vpa-api';
import type { DecodedPod } from './pod-decoder.js';

/**
 * The pod as the webhook decides on it (`gatedNativeSidecars`): with the `NativeSidecar`
 * gate off its sidecars are left as declared and out of `vpaObservedContainers`. The raw
 * object the patch applies to is never changed.
 */
export function gatedSidecars(
  pod: DecodedPod,
  gates: FeatureGates,
): DecodedPod {
  return { ...pod, pod: gatedNativeSidecars(pod.pod, gates) };
}
