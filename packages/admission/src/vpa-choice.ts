import {
  compileLabelSelector,
  getUpdateMode,
  UpdateMode,
  type Labels,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import type { VpaCandidate } from './admission-types.js';
import { isRecord } from './guards.js';

/**
 * The candidates whose target selector matches the pod's labels, in the given order.
 * A candidate without a selector, with a selector the API server would reject, or without
 * a `spec` object matches nothing.
 *
 * Upstream also requires the VPA's `targetRef` to name the pod's top-most controller; the
 * caller resolves each target's selector instead, and a pod is matched by selector only, so
 * two workloads whose selectors overlap may both be claimed by one VPA.
 */
export function matchingVpas(
  candidates: ReadonlyArray<VpaCandidate>,
  labels: Labels | undefined,
): VerticalPodAutoscaler[] {
  return candidates.flatMap((candidate) => {
    if (!isRecord(candidate) || !isUsable(candidate.vpa)) return [];
    if (candidate.selector === undefined) return [];
    try {
      return compileLabelSelector(candidate.selector).matches(labels)
        ? [candidate.vpa]
        : [];
    } catch {
      return [];
    }
  });
}

/**
 * The VPA that controls a new pod, as upstream picks it: among the matching VPAs whose
 * update mode is not Off, the oldest (`metadata.creationTimestamp`), then the smallest name.
 * Every other mode applies the recommendation at creation. Undefined when none qualifies.
 */
export function chooseVpa(
  candidates: ReadonlyArray<VpaCandidate>,
  labels: Labels | undefined,
): VerticalPodAutoscaler | undefined {
  return controllingVpa(matchingVpas(candidates, labels));
}

/** The oldest, then smallest-named, of `vpas` whose update mode is not Off. */
export function controllingVpa(
  vpas: readonly VerticalPodAutoscaler[],
): VerticalPodAutoscaler | undefined {
  let chosen: VerticalPodAutoscaler | undefined;
  for (const vpa of vpas) {
    if (getUpdateMode(vpa) === UpdateMode.Off) continue;
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
