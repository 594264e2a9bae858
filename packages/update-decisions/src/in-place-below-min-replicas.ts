import type { VerticalPodAutoscaler } from '@tandem/vpa-api';

/**
 * The VPA annotation by which a workload asks for in-place resizes of a replica group below
 * `minReplicas` (kubernetes/autoscaler#9157): its pods are resized in place and never
 * evicted, where the updater otherwise leaves such a group alone. Named after what it
 * allows, not after "single replica": it holds for any group smaller than `minReplicas`.
 * It acts only when the updater runs with `--in-place-below-min-replicas` too.
 */
export const IN_PLACE_BELOW_MIN_REPLICAS_ANNOTATION =
  'tandem.dev/in-place-below-min-replicas';

/** Whether the VPA carries `tandem.dev/in-place-below-min-replicas: "true"`. */
export function asksInPlaceBelowMinReplicas(
  vpa: VerticalPodAutoscaler,
): boolean {
  return (
    vpa.metadata?.annotations?.[IN_PLACE_BELOW_MIN_REPLICAS_ANNOTATION] ===
    'true'
  );
}
