import {
  boostedContainerNames,
  getUpdateMode,
  isNativeSidecar,
  UpdateMode,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { UPDATER_DEFAULTS, withDefaults } from './defaults.js';
import { ReplicaOwnerKind, type ReplicaOwner } from './replica-groups.js';
import { groupReplicas, type ReplicaGrouping } from './replica-grouping.js';
import { asksInPlaceBelowMinReplicas } from './in-place-below-min-replicas.js';
import { resizeFallback } from './resize-fallback.js';
import { isResizeOngoing, readResizeState } from './resize-state.js';
import { isPending, podId, type UpdaterPod } from './updater-pod.js';

const RESTART_CONTAINER = 'RestartContainer';

export interface UpdateRestrictionOptions {
  /** `--min-replicas`; the VPA's `updatePolicy.minReplicas` overrides it. */
  minReplicas: number;
  /** `--eviction-tolerance`. */
  evictionTolerance: number;
  /**
   * Tandem's opt-in, off by default: a group with exactly one live pod may be disrupted
   * even below `minReplicas` (the workload is down while its only pod is replaced).
   */
  allowSingleReplica: boolean;
  /**
   * `--in-place-skip-disruption-budget`: in the in-place modes, a group below `minReplicas`
   * may still be resized (never evicted), and a resize that restarts no container skips the
   * tolerance check.
   */
  inPlaceSkipDisruptionBudget: boolean;
  /**
   * `--in-place-below-min-replicas` (Tandem's, off by default): in the in-place modes, a
   * group below `minReplicas` of a VPA annotated `tandem.dev/in-place-below-min-replicas:
   * "true"` is resized in place within the tolerance and never evicted, even with
   * `allowSingleReplica` (the VPA asked for no disruption).
   */
  inPlaceBelowMinReplicas: boolean;
}

export interface UpdateRestrictionInput {
  vpa: VerticalPodAutoscaler;
  /** The VPA's pods; those not scheduled, finished or being deleted are ignored. */
  pods: readonly UpdaterPod[];
  /** The cycle's time: a resize that has not finished is judged against it. */
  now: Date;
  /**
   * How many replicas the owner should have: `spec.replicas` of a ReplicationController,
   * ReplicaSet or StatefulSet, `status.numberReady` of a DaemonSet, `spec.replicas` of the
   * `scale` subresource of a scalable owner. Undefined (not known) or 0 leaves the group
   * alone, as upstream does. Not asked for Jobs: their live pods count.
   */
  configuredReplicas: (owner: ReplicaOwner) => number | undefined;
  /**
   * The pod's replica group owner; default `replicaOwner(pod)`, which knows only the
   * well-known kinds. The cycle passes the pod's top-most controller too, so pods of
   * scalable owners form groups.
   */
  ownerOf?: (pod: UpdaterPod) => ReplicaOwner | undefined;
  options?: Partial<UpdateRestrictionOptions>;
  /**
   * The CPUStartupBoost gate is on and the VPA has a boost: a group below `minReplicas`
   * with a boosted pod is kept for the unboost (upstream `GetCreatorMaps`,
   * `pkg/updater/restriction/pods_restriction_factory.go`), but only for it.
   */
  unboosting?: boolean;
  /**
   * `groupReplicas(pods, ownerOf)` when the caller keeps it from an earlier cycle (the
   * same pod objects and owners); `pods` and `ownerOf` are not read then.
   */
  grouping?: ReplicaGrouping;
}

/** One replica group's counts (upstream `singleGroupStats`). */
export interface ReplicaGroupStats {
  owner: ReplicaOwner;
  configured: number;
  /** `trunc(configured × evictionTolerance)`: how many may be down at once. */
  tolerance: number;
  running: number;
  pending: number;
  /** Pods with a resize pending or in progress when the cycle began. */
  resizing: number;
  evicted: number;
  resizedInPlace: number;
  /** The VPA's `updatePolicy.minReplicas`, else `--min-replicas`. */
  minReplicas: number;
  /**
   * Kept only for in-place resizes (skip-disruption-budget, in-place-below-min-replicas);
   * eviction is refused.
   */
  belowMinReplicas: boolean;
  /** Below `minReplicas`, kept only so its boosted pods can be unboosted. */
  unboostOnly: boolean;
}

/**
 * How many pods of each replica group the updater may still disrupt in this cycle
 * (upstream `pods_restriction_factory`, `PodsEvictionRestriction` and the budget part of
 * `PodsInPlaceRestriction`). Build one per VPA per cycle; record each eviction or in-place
 * resize the API server accepted, so later checks see it.
 */
export class UpdateRestriction {
  private constructor(
    private readonly grouping: ReplicaGrouping,
    /** By group of `grouping`; undefined for a group the updater leaves alone. */
    private readonly stats: readonly (ReplicaGroupStats | undefined)[],
    /** The cycle's time, against which unfinished resizes are judged. */
    readonly cycleTime: Date,
    private readonly skipBudgetForInPlace: boolean,
  ) {}

  static create(input: UpdateRestrictionInput): UpdateRestriction {
    const options = withDefaults<UpdateRestrictionOptions>(
      {
        minReplicas: UPDATER_DEFAULTS.minReplicas,
        evictionTolerance: UPDATER_DEFAULTS.evictionTolerance,
        allowSingleReplica: false,
        inPlaceSkipDisruptionBudget:
          UPDATER_DEFAULTS.inPlaceSkipDisruptionBudget,
        inPlaceBelowMinReplicas: false,
      },
      input.options,
    );
    const mode = getUpdateMode(input.vpa);
    const inPlaceMode =
      mode === UpdateMode.InPlaceOrRecreate || mode === UpdateMode.InPlace;
    const skipBudgetForInPlace =
      inPlaceMode && options.inPlaceSkipDisruptionBudget;
    const inPlaceOnlyBelowMin =
      inPlaceMode &&
      options.inPlaceBelowMinReplicas &&
      asksInPlaceBelowMinReplicas(input.vpa);
    const required =
      input.vpa.spec.updatePolicy?.minReplicas ?? options.minReplicas;

    const grouping = input.grouping ?? groupReplicas(input.pods, input.ownerOf);
    const stats = grouping.groups.map(
      ({ owner, pods, pending, resizing }): ReplicaGroupStats | undefined => {
        const live = pods.length;
        const singleReplicaAllowed =
          options.allowSingleReplica && live === 1 && !inPlaceOnlyBelowMin;
        const belowMinReplicas = live < required && !singleReplicaAllowed;
        const unboostOnly =
          belowMinReplicas &&
          !skipBudgetForInPlace &&
          !inPlaceOnlyBelowMin &&
          input.unboosting === true &&
          pods.some(hasStartupBoostAnnotation);
        if (
          belowMinReplicas &&
          !skipBudgetForInPlace &&
          !inPlaceOnlyBelowMin &&
          !unboostOnly
        )
          return undefined;
        const configured =
          !('scalable' in owner) && owner.kind === ReplicaOwnerKind.Job
            ? live
            : input.configuredReplicas(owner);
        if (configured === undefined || !(configured > 0)) return undefined;
        return {
          owner,
          configured,
          tolerance: Math.trunc(configured * options.evictionTolerance),
          running: live - pending,
          pending,
          resizing,
          evicted: 0,
          resizedInPlace: 0,
          minReplicas: required,
          belowMinReplicas,
          unboostOnly,
        };
      },
    );
    return new UpdateRestriction(
      grouping,
      stats,
      input.now,
      skipBudgetForInPlace,
    );
  }

  /**
   * The pod's group counts, found by its id as the caller's pod object may be a copy; a
   * pod listed in several groups counts in the last one that has counts.
   */
  private statsOf(pod: UpdaterPod): ReplicaGroupStats | undefined {
    const id = podId(pod);
    const shared = this.grouping.sharedIds.get(id);
    if (shared !== undefined)
      return shared.reduce<ReplicaGroupStats | undefined>(
        (found, index) => this.stats[index] ?? found,
        undefined,
      );
    const index = this.grouping.groupIndex.get(id);
    return index === undefined ? undefined : this.stats[index];
  }

  /** Whether the pod belongs to a replica group the updater may act on at all. */
  isGrouped(pod: UpdaterPod): boolean {
    return this.statsOf(pod) !== undefined;
  }

  /** A copy of the pod's group counts, or undefined when it has no group. */
  groupOf(pod: UpdaterPod): Readonly<ReplicaGroupStats> | undefined {
    const group = this.statsOf(pod);
    return group && { ...group };
  }

  /**
   * Whether evicting the pod keeps its group within tolerance. A Pending pod always may go;
   * a pod whose resize has not finished only when InPlaceOrRecreate's fallback rules say the
   * resize failed or stalled (`resizeFallback`).
   */
  canEvict(pod: UpdaterPod): boolean {
    return this.whyNotEvictable(pod) === undefined;
  }

  /** Why `canEvict` refuses the pod, with the group's numbers; undefined when it may go. */
  whyNotEvictable(pod: UpdaterPod): string | undefined {
    const group = this.statsOf(pod);
    if (group === undefined)
      return "the pod is in no replica group the updater may disrupt (fewer live pods than minReplicas, or its owner's replicas unknown)";
    if (isPending(pod)) return undefined;
    if (group.belowMinReplicas)
      return `${groupName(group)} has ${group.running + group.pending} live pods, fewer than minReplicas ${group.minReplicas}: it is only resized in place`;
    if (!isDisruptable(group))
      return `${groupName(group)} must keep ${group.configured - group.tolerance} of ${group.configured} pods up (eviction tolerance) and has ${group.running - group.evicted - group.resizedInPlace} up`;
    if (!isResizeOngoing(pod)) return undefined;
    const fallback = resizeFallback(readResizeState(pod), this.cycleTime);
    return fallback.action === 'fall-back-to-eviction'
      ? undefined
      : `its resize is not done: ${fallback.reason}`;
  }

  /** Counts an eviction the API server accepted (a Pending pod was not running: no count). */
  recordEviction(pod: UpdaterPod): void {
    const group = this.statsOf(pod);
    if (group !== undefined && !isPending(pod)) group.evicted += 1;
  }

  /**
   * Whether the group can afford a resize of the pod now. Pending pods are not resized. With
   * skip-disruption-budget, a resize that restarts no container needs no budget. Whether a
   * resize is already under way is `decideInPlaceUpdate`'s concern.
   */
  canResizeInPlace(pod: UpdaterPod): boolean {
    const group = this.statsOf(pod);
    if (group === undefined || isPending(pod) || group.unboostOnly)
      return false;
    if (this.skipBudgetForInPlace && !restartsAContainer(pod)) return true;
    return isDisruptable(group);
  }

  /**
   * Whether the pod's CPU startup boost may be taken back now (upstream `CanUnboost`,
   * `pkg/updater/restriction/pods_inplace_restriction.go`): it is grouped, running, not
   * already resizing, and its group can afford a resize.
   */
  canUnboost(pod: UpdaterPod): boolean {
    const group = this.statsOf(pod);
    if (group === undefined || isPending(pod) || isResizeOngoing(pod))
      return false;
    return isDisruptable(group);
  }

  /** Counts an in-place resize the API server accepted. */
  recordInPlace(pod: UpdaterPod): void {
    const group = this.statsOf(pod);
    if (group !== undefined) group.resizedInPlace += 1;
  }
}

/**
 * Upstream `isPodDisruptable`: more pods are up than the group must keep, or, so that a
 * small group (tolerance 0) is not stuck forever, all of them run and none has been touched
 * in this cycle: then exactly one may go.
 */
function isDisruptable(group: ReplicaGroupStats): boolean {
  const mustStayUp = group.configured - group.tolerance;
  const stillUp = group.running - (group.evicted + group.resizedInPlace);
  return (
    stillUp > mustStayUp ||
    (group.configured === group.running &&
      group.tolerance === 0 &&
      group.evicted === 0 &&
      group.resizedInPlace === 0)
  );
}

function hasStartupBoostAnnotation(pod: UpdaterPod): boolean {
  return boostedContainerNames(pod.metadata?.annotations).length > 0;
}

function groupName({ owner }: ReplicaGroupStats): string {
  return `${owner.kind} ${owner.name}`;
}

/**
 * Whether a resize would restart a container or a native sidecar (upstream's
 * `pkg/updater/utils/pod.go` leaves sidecars to a TODO; a sidecar restarted by its
 * `resizePolicy` disrupts the pod as much as an app container).
 */
function restartsAContainer(pod: UpdaterPod): boolean {
  const sidecars = (pod.spec.initContainers ?? []).filter(isNativeSidecar);
  return [...pod.spec.containers, ...sidecars].some((container) =>
    (container.resizePolicy ?? []).some(
      (policy) => policy.restartPolicy === RESTART_CONTAINER,
    ),
  );
}
