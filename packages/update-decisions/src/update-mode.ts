import {
  FeatureGate,
  getUpdateMode,
  UpdateMode,
  type FeatureGates,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';

/** What the updater does with the pods of a VPA. */
export type UpdaterStrategy =
  /** Recreate, Auto (deprecated alias) and an unset mode: evict. */
  | 'evict'
  /** InPlaceOrRecreate: resize in place, evict when that fails. */
  | 'resize-in-place-or-evict'
  /** InPlace (alpha, behind the `InPlace` gate): resize in place, never evict. */
  | 'resize-in-place-only'
  /** Off and Initial, or InPlace with its gate off: leave the pods alone. */
  | 'none';

const MODES_THE_UPDATER_ACTS_ON: ReadonlySet<string> = new Set([
  UpdateMode.Recreate,
  UpdateMode.Auto,
  UpdateMode.InPlaceOrRecreate,
  UpdateMode.InPlace,
]);

/**
 * Whether the updater changes running pods of a VPA in this mode (upstream's VPA filter):
 * Off and Initial only act at pod creation, through the admission controller.
 */
export function updaterActsOn(mode: UpdateMode): boolean {
  return MODES_THE_UPDATER_ACTS_ON.has(mode);
}

/**
 * The updater's strategy for a VPA; an unset or empty mode is Recreate. InPlace without its
 * feature gate does nothing: upstream logs a warning and skips the VPA.
 */
export function updaterStrategy(
  vpa: VerticalPodAutoscaler,
  featureGates: FeatureGates = {},
): UpdaterStrategy {
  switch (getUpdateMode(vpa)) {
    case UpdateMode.Recreate:
    case UpdateMode.Auto:
      return 'evict';
    case UpdateMode.InPlaceOrRecreate:
      return 'resize-in-place-or-evict';
    case UpdateMode.InPlace:
      return featureGates[FeatureGate.InPlace] === true
        ? 'resize-in-place-only'
        : 'none';
    default:
      return 'none';
  }
}
