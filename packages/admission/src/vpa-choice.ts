import {
  compileLabelSelector,
  getUpdateMode,
  hasStartupBoost,
  UpdateMode,
  type Labels,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import type { ControllerKey, VpaCandidate } from './admission-types.js';
import { isRecord } from './guards.js';

/**
 * A pod as upstream's `GetControllingVPAForPod` (`pkg/utils/vpa/api.go`) sees it. Its
 * namespace is the caller's to match: the webhook's candidates are the VPAs of the pod's
 * namespace, the updater indexes its candidates by namespace.
 */
export interface PodToMatch {
  labels: Labels | undefined;
  /**
   * Its top-most well-known or scalable controller (`FindTopMostWellKnownOrScalable`), or
   * undefined when it has none: no controlling owner (a bare pod), a Node owner (a static
   * pod), an owner chain of custom resources without `/scale`, or a chain that could not be
   * read. Such a pod is controlled by no VPA.
   */
  controller: ControllerKey | undefined;
}

/**
 * Whether a VPA targets the pod's top-most controller: `targetRef` kind and name equal to
 * it. Upstream compares no API version, so `apps/v1` and `extensions/v1beta1` Deployments
 * of one name are the same target.
 */
export function targetsPodController(
  vpa: VerticalPodAutoscaler,
  controller: ControllerKey | undefined,
): boolean {
  const ref: unknown = vpa.spec?.targetRef;
  return (
    controller !== undefined &&
    isRecord(ref) &&
    ref['kind'] === controller.kind &&
    ref['name'] === controller.name
  );
}

/**
 * The candidates that may control the pod, in the given order: those whose target is the
 * pod's top-most controller and whose selector matches its labels, as upstream's
 * `GetControllingVPAForPod` filters. A selector alone would claim a bare pod or a Job's pod
 * that happens to carry a Deployment's labels. A candidate without a selector, with a
 * selector the API server would reject, or without a `spec` object matches nothing.
 */
export function matchingVpas(
  candidates: ReadonlyArray<VpaCandidate>,
  pod: PodToMatch,
): VerticalPodAutoscaler[] {
  return candidates.flatMap((candidate) =>
    selectsPod(candidate, pod.labels) &&
    targetsPodController(candidate.vpa, pod.controller)
      ? [candidate.vpa]
      : [],
  );
}

/**
 * Whether the candidate's selector matches the labels: the half of the rule that needs no
 * owner lookup, so a caller can skip the lookup for a pod no selector matches.
 */
export function selectsPod(
  candidate: VpaCandidate,
  labels: Labels | undefined,
): boolean {
  if (!isRecord(candidate) || !isUsable(candidate.vpa)) return false;
  if (candidate.selector === undefined) return false;
  try {
    return compileLabelSelector(candidate.selector).matches(labels);
  } catch {
    return false;
  }
}

/**
 * The VPA that controls a pod, as upstream picks it: among the matching VPAs whose update
 * mode is not Off (or that ask for a CPU startup boost), the oldest
 * (`metadata.creationTimestamp`), then the smallest name. Every other mode applies the
 * recommendation at creation. Undefined when none qualifies.
 */
export function chooseVpa(
  candidates: ReadonlyArray<VpaCandidate>,
  pod: PodToMatch,
): VerticalPodAutoscaler | undefined {
  return controllingVpa(matchingVpas(candidates, pod));
}

/**
 * The oldest, then smallest-named, of `vpas` whose update mode is not Off or that has a
 * startup boost: upstream's matcher (`pkg/admission-controller/resource/vpa/matcher.go`,
 * `GetMatchingVPA`) keeps an Off VPA with `startupBoost`, whatever the feature gate.
 */
export function controllingVpa(
  vpas: readonly VerticalPodAutoscaler[],
): VerticalPodAutoscaler | undefined {
  let chosen: VerticalPodAutoscaler | undefined;
  for (const vpa of vpas) {
    if (getUpdateMode(vpa) === UpdateMode.Off && !hasStartupBoost(vpa))
      continue;
    if (chosen === undefined || isStronger(vpa, chosen)) chosen = vpa;
  }
  return chosen;
}

function isStronger(
  a: VerticalPodAutoscaler,
  b: VerticalPodAutoscaler,
): boolean {
  const [timeA, timeB] = [creationTime(a), creationTime(b)];
  if (timeA !== timeB) return timeA < timeB;
  return nameOf(a) < nameOf(b);
}

/** Milliseconds since the epoch; an unset or unreadable time counts as Go's zero time (oldest). */
function creationTime(vpa: VerticalPodAutoscaler): number {
  const text = vpa.metadata?.creationTimestamp;
  const time = typeof text === 'string' ? Date.parse(text) : Number.NaN;
  return Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
}

function nameOf(vpa: VerticalPodAutoscaler): string {
  const name = vpa.metadata?.name;
  return typeof name === 'string' ? name : '';
}

/** A VPA object the lookups can read without tripping over a wrong JSON type. */
function isUsable(vpa: unknown): vpa is VerticalPodAutoscaler {
  return (
    isRecord(vpa) &&
    isRecord(vpa['spec']) &&
    (vpa['metadata'] === undefined || isRecord(vpa['metadata']))
  );
}
