import {
  FeatureGate,
  type FeatureGates,
  withoutNativeSidecars,
} from '@tandem/vpa-api';
import type { DecodedPod } from './pod-decoder.js';

/**
 * The pod as the webhook decides on it: with `--feature-gates=NativeSidecar=true` its
 * native sidecars are admitted like containers (AEP-8905); with the gate off (the default,
 * as upstream's alpha gate) they are plain init containers, left as declared and out of
 * `vpaObservedContainers`. The raw object the patch applies to is never changed.
 */
export function gatedSidecars(
  pod: DecodedPod,
  gates: FeatureGates,
): DecodedPod {
  return gates[FeatureGate.NativeSidecar] === true
    ? pod
    : { ...pod, pod: withoutNativeSidecars(pod.pod) };
}
