import type { AddOperation } from '@tandem/admission';
import {
  assessPod,
  guardMemoryShrink,
  inPlaceResizePatch,
  updaterRecommendation,
  type PodAssessment,
  type UpdaterPod,
} from '@tandem/update-decisions';
import {
  changedResources,
  describeResourceChanges,
  vpaContainersByName,
  type LimitRange,
  type ProcessedRecommendation,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { podShape } from './pod-shape.js';

/** What the updater works out for a pod from its resources, its VPA and its LimitRanges. */
export interface PodEvaluation {
  recommendation: ProcessedRecommendation | undefined;
  assessment: PodAssessment;
  /** The `resize` patch, worked out on first use. */
  resizePatch(): AddOperation[];
  /**
   * Whether the patch lowers a memory limit (or sets one where there was none), worked out
   * on first use: only then does the memory-shrink rail need the pod's working set.
   */
  lowersMemoryLimit(): boolean;
  /**
   * What the recommendation changes, each request against its target, as the updater's
   * events say it (`app: cpu 100m -> 250m, memory 128Mi -> 200Mi`); empty when nothing.
   * Worked out on first use.
   */
  recommendedChanges(): string;
}

/** The versions one VPA's pods are evaluated against, with the evaluations kept for them. */
interface Versions {
  vpa: VerticalPodAutoscaler;
  limitRanges: readonly LimitRange[];
  version: string | undefined;
  /** `versionsKey`; undefined when an object has no version: nothing is kept then. */
  key: string | undefined;
  /** This cycle's evaluations by pod shape (`podShape`), and the last cycle's. */
  current: Map<string, PodEvaluation> | undefined;
  previous: Map<string, PodEvaluation> | undefined;
}

/**
 * Pod evaluations kept from one cycle to the next. An evaluation depends only on what
 * `podShape` reads of the pod (containers, resources, VPA annotations), on the VPA object
 * and on the namespace's LimitRanges; the replicas of a workload share one, and an unchanged cluster needs none
 * worked out again. Objects are told apart by `resourceVersion`, so any change to the VPA
 * (a new recommendation) or to a LimitRange starts afresh; objects without one are never
 * kept. Evaluations unused for a whole cycle are dropped.
 */
export class PodEvaluations {
  /** By versions key (`versionsKey`), then by pod shape (`podShape`). */
  private current = new Map<string, Map<string, PodEvaluation>>();
  private previous = new Map<string, Map<string, PodEvaluation>>();
  /**
   * The last evaluation of each pod object, with the versions it was made against and its
   * shape: the caches replace a pod object when it changes, so an unchanged pod is found
   * here without working out its shape, also when its VPA has a new version (after a new
   * recommendation every pod is evaluated afresh, but none changed). Gone pods drop out
   * with their objects.
   */
  private readonly byPod = new WeakMap<
    UpdaterPod,
    { versions: string; shape: string; evaluation: PodEvaluation }
  >();
  /**
   * `versionsKey` of the VPA and LimitRanges the last pod was evaluated against, with the
   * evaluations kept for them: a VPA's pods come one after the other with the same two
   * objects, and building the key per pod was a string per pod of the cluster per cycle.
   */
  private lastVersions: Versions | undefined;

  /** The pod's evaluation; throws `QuantityError` for a malformed quantity. */
  evaluate(
    pod: UpdaterPod,
    vpa: VerticalPodAutoscaler,
    limitRanges: readonly LimitRange[],
  ): PodEvaluation {
    const versions = this.versionsOf(vpa, limitRanges);
    if (versions.key === undefined || versions.current === undefined)
      return evaluatePod(pod, vpa, limitRanges);
    const last = this.byPod.get(pod);
    if (last !== undefined && last.versions === versions.key) {
      if (!versions.current.has(last.shape))
        versions.current.set(last.shape, last.evaluation);
      return last.evaluation;
    }
    // The shape depends on the pod object alone: a new VPA version keeps it.
    const shape = last?.shape ?? podShape(pod);
    const evaluation =
      versions.current.get(shape) ??
      versions.previous?.get(shape) ??
      evaluatePod(pod, vpa, limitRanges);
    versions.current.set(shape, evaluation);
    if (last === undefined)
      this.byPod.set(pod, { versions: versions.key, shape, evaluation });
    else {
      // The pod's own record, renewed in place rather than a new record and WeakMap
      // entry for every pod of the cluster after every new recommendation.
      last.versions = versions.key;
      last.evaluation = evaluation;
    }
    return evaluation;
  }

  private versionsOf(
    vpa: VerticalPodAutoscaler,
    limitRanges: readonly LimitRange[],
  ): Versions {
    const last = this.lastVersions;
    if (
      last?.vpa === vpa &&
      last.limitRanges === limitRanges &&
      last.version === vpa.metadata?.resourceVersion
    )
      return last;
    const key = versionsKey(vpa, limitRanges);
    let current: Map<string, PodEvaluation> | undefined;
    if (key !== undefined) {
      current = this.current.get(key);
      if (current === undefined) {
        current = new Map();
        this.current.set(key, current);
      }
    }
    this.lastVersions = {
      vpa,
      limitRanges,
      version: vpa.metadata?.resourceVersion,
      key,
      current,
      previous: key === undefined ? undefined : this.previous.get(key),
    };
    return this.lastVersions;
  }

  /** Called after each cycle: what that cycle did not use is forgotten after the next. */
  endCycle(): void {
    this.previous = this.current;
    this.current = new Map();
    this.lastVersions = undefined;
  }

  get size(): number {
    let size = 0;
    for (const evaluations of this.current.values()) size += evaluations.size;
    for (const evaluations of this.previous.values()) size += evaluations.size;
    return size;
  }
}

function evaluatePod(
  pod: UpdaterPod,
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[],
): PodEvaluation {
  const recommendation = updaterRecommendation(pod, vpa, limitRanges);
  let patch: AddOperation[] | undefined;
  let lowers: boolean | undefined;
  let changes: string | undefined;
  const resizePatch = () =>
    (patch ??= inPlaceResizePatch(pod, vpa, limitRanges));
  return {
    recommendation,
    assessment: assessPod(pod, vpa, recommendation),
    resizePatch,
    // Without working sets the rail keeps exactly the limits the patch lowers.
    lowersMemoryLimit: () =>
      (lowers ??=
        guardMemoryShrink(pod, resizePatch(), undefined, 0).kept.length > 0),
    recommendedChanges: () =>
      (changes ??= describeRecommendedChanges(pod, recommendation)),
  };
}

function describeRecommendedChanges(
  pod: UpdaterPod,
  recommendation: ProcessedRecommendation | undefined,
): string {
  const places = vpaContainersByName(pod);
  return describeResourceChanges(
    (recommendation?.containerRecommendations ?? []).flatMap(
      ({ containerName, target }) =>
        changedResources(
          containerName,
          places.get(containerName)?.container.resources?.requests,
          target,
        ),
    ),
  );
}

/** The VPA's and LimitRanges' versions; undefined when one has none (not from the API server). */
function versionsKey(
  vpa: VerticalPodAutoscaler,
  limitRanges: readonly LimitRange[],
): string | undefined {
  const version = vpa.metadata?.resourceVersion;
  if (version === undefined) return undefined;
  let key = `${vpa.metadata?.namespace}/${vpa.metadata?.name}@${version}`;
  for (const limitRange of limitRanges) {
    const limitVersion = limitRange.metadata?.resourceVersion;
    if (limitVersion === undefined) return undefined;
    key += `,${limitVersion}`;
  }
  return key;
}
