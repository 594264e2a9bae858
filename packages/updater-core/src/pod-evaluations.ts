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
  PodAnnotation,
  vpaContainersByName,
  type LimitRange,
  type ProcessedRecommendation,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';

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

/**
 * Pod evaluations kept from one cycle to the next. An evaluation depends only on the pod's
 * containers, resources and VPA annotations, on the VPA object and on the namespace's
 * LimitRanges; the replicas of a workload share one, and an unchanged cluster needs none
 * worked out again. Objects are told apart by `resourceVersion`, so any change to the VPA
 * (a new recommendation) or to a LimitRange starts afresh; objects without one are never
 * kept. Evaluations unused for a whole cycle are dropped.
 */
export class PodEvaluations {
  private current = new Map<string, PodEvaluation>();
  private previous = new Map<string, PodEvaluation>();
  /**
   * The last evaluation of each pod object, with the versions it was made against: the
   * caches replace a pod object when it changes, so an unchanged pod is found here without
   * working out its shape. Gone pods drop out with their objects.
   */
  private readonly byPod = new WeakMap<
    UpdaterPod,
    { versions: string; shapeKey: string; evaluation: PodEvaluation }
  >();
  /**
   * `versionsKey` of the VPA and LimitRanges the last pod was evaluated against: a VPA's
   * pods come one after the other with the same two objects, and building the key per pod
   * was a string per pod of the cluster per cycle.
   */
  private lastVersions:
    | {
        vpa: VerticalPodAutoscaler;
        limitRanges: readonly LimitRange[];
        version: string | undefined;
        key: string | undefined;
      }
    | undefined;

  /** The pod's evaluation; throws `QuantityError` for a malformed quantity. */
  evaluate(
    pod: UpdaterPod,
    vpa: VerticalPodAutoscaler,
    limitRanges: readonly LimitRange[],
  ): PodEvaluation {
    const versions = this.versionsOf(vpa, limitRanges);
    if (versions === undefined) return evaluatePod(pod, vpa, limitRanges);
    const last = this.byPod.get(pod);
    if (last !== undefined && last.versions === versions) {
      if (!this.current.has(last.shapeKey))
        this.current.set(last.shapeKey, last.evaluation);
      return last.evaluation;
    }
    const shapeKey = `${versions}|${podShape(pod)}`;
    const evaluation =
      this.current.get(shapeKey) ??
      this.previous.get(shapeKey) ??
      evaluatePod(pod, vpa, limitRanges);
    this.current.set(shapeKey, evaluation);
    this.byPod.set(pod, { versions, shapeKey, evaluation });
    return evaluation;
  }

  private versionsOf(
    vpa: VerticalPodAutoscaler,
    limitRanges: readonly LimitRange[],
  ): string | undefined {
    const last = this.lastVersions;
    if (
      last?.vpa === vpa &&
      last.limitRanges === limitRanges &&
      last.version === vpa.metadata?.resourceVersion
    )
      return last.key;
    const key = versionsKey(vpa, limitRanges);
    this.lastVersions = {
      vpa,
      limitRanges,
      version: vpa.metadata?.resourceVersion,
      key,
    };
    return key;
  }

  /** Called after each cycle: what that cycle did not use is forgotten after the next. */
  endCycle(): void {
    this.previous = this.current;
    this.current = new Map();
  }

  get size(): number {
    return this.current.size + this.previous.size;
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

/** What of a pod its evaluation depends on: containers, resources, VPA annotations. */
function podShape(pod: UpdaterPod): string {
  const annotations = pod.metadata?.annotations ?? {};
  return JSON.stringify([
    pod.spec.containers.map((container) => [
      container.name,
      container.resources,
    ]),
    pod.spec.initContainers?.map((container) => [
      container.name,
      container.resources,
    ]),
    pod.status?.containerStatuses?.map((status) => [
      status.name,
      status.resources,
    ]),
    pod.status?.initContainerStatuses?.map((status) => [
      status.name,
      status.resources,
    ]),
    Object.entries(annotations).filter(
      ([name]) =>
        name === PodAnnotation.vpaObservedContainers ||
        name.startsWith(PodAnnotation.vpaCpuStartupBoostPrefix),
    ),
  ]);
}
