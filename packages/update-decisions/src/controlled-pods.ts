import {
  controllingVpa,
  targetsPodController,
  type ControllerKey,
  type VpaCandidate,
} from '@tandem/admission';
import {
  compileLabelSelector,
  type LabelSelectorMatcher,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import type { UpdaterPod } from './updater-pod.js';

interface CompiledCandidate {
  vpa: VerticalPodAutoscaler;
  matcher: LabelSelectorMatcher;
}

/** Candidates of one namespace, indexed by one `matchLabels` pair each (most selectors have one). */
interface NamespaceCandidates {
  /**
   * Label key → label value → candidates: two lookups of the pod's own strings, where one
   * key joining both would build and hash a new string per label of every pod.
   */
  byLabel: Map<string, Map<string, CompiledCandidate[]>>;
  /** Selectors without `matchLabels`: tried against every pod. */
  unindexed: CompiledCandidate[];
}

/** Pods of one top-most controller (`controller`), as the cycle groups them by owner. */
export interface PodGroup<C extends ControllerKey = ControllerKey> {
  controller: C;
  pods: UpdaterPod[];
}

/**
 * Each live pod's controlling VPA among `candidates` (the VPAs the updater acts on, with
 * their targets' selectors), as upstream's `GetControllingVPAForPod` picks it and by the
 * webhook's rule (`@tandem/admission`'s `targetsPodController` and `controllingVpa`): the
 * VPAs of the pod's namespace that target its top-most controller (its group's; a pod
 * without one is in no group) and whose selector matches its labels, then the oldest, then
 * the smallest name. A candidate without a selector, or with one that does not compile,
 * controls nothing. Each VPA's pods come back in groups of one controller, in the order
 * given.
 *
 * A selector is compiled once and filed under one of its `matchLabels` pairs, so a pod is
 * only tried against the selectors that share one of its labels: with thousands of VPAs
 * in a namespace, a cycle stays linear in pods. The pods of one group (a ReplicaSet's
 * replicas) nearly always carry the same labels: a pod whose namespace and labels are
 * those of the group's last pod matched gets that pod's answer without matching again.
 */
export function podsByControllingVpa<C extends ControllerKey>(
  candidates: readonly VpaCandidate[],
  groups: Iterable<PodGroup<C>>,
): Map<VerticalPodAutoscaler, PodGroup<C>[]> {
  const namespaces = indexCandidates(candidates);
  const controlled = new Map<VerticalPodAutoscaler, PodGroup<C>[]>();
  // Reused for every pod: this loop runs for each pod of the cluster every cycle, and
  // the arrays it used to build per pod were a fifth of a steady cycle's time.
  const matching: VerticalPodAutoscaler[] = [];
  for (const { controller, pods } of groups) {
    let last:
      | { pod: UpdaterPod; vpa: VerticalPodAutoscaler | undefined }
      | undefined;
    for (const pod of pods) {
      let vpa: VerticalPodAutoscaler | undefined;
      if (last !== undefined && sameNamespaceAndLabels(last.pod, pod))
        vpa = last.vpa;
      else {
        vpa = controllingVpaOf(namespaces, matching, controller, pod);
        last = { pod, vpa };
      }
      if (vpa !== undefined) addToGroup(controlled, vpa, controller, pod);
    }
  }
  return controlled;
}

function controllingVpaOf(
  namespaces: ReadonlyMap<string, NamespaceCandidates>,
  matching: VerticalPodAutoscaler[],
  controller: ControllerKey,
  pod: UpdaterPod,
): VerticalPodAutoscaler | undefined {
  const inNamespace = namespaces.get(pod.metadata?.namespace ?? '');
  if (inNamespace === undefined) return undefined;
  const labels = pod.metadata?.labels ?? {};
  matching.length = 0;
  addMatching(matching, inNamespace.unindexed, controller, labels);
  for (const key in labels) {
    const filed = inNamespace.byLabel.get(key)?.get(labels[key] ?? '');
    if (filed !== undefined) addMatching(matching, filed, controller, labels);
  }
  return controllingVpa(matching);
}

/** The pod joins the VPA's last group when that is its controller's, else a new one. */
function addToGroup<C extends ControllerKey>(
  controlled: Map<VerticalPodAutoscaler, PodGroup<C>[]>,
  vpa: VerticalPodAutoscaler,
  controller: C,
  pod: UpdaterPod,
): void {
  const groups = controlled.get(vpa);
  const last = groups?.at(-1);
  if (last?.controller === controller) last.pods.push(pod);
  else if (groups === undefined)
    controlled.set(vpa, [{ controller, pods: [pod] }]);
  else groups.push({ controller, pods: [pod] });
}

/** Whether two pods have the same namespace and the same labels (every key, every value). */
function sameNamespaceAndLabels(a: UpdaterPod, b: UpdaterPod): boolean {
  if ((a.metadata?.namespace ?? '') !== (b.metadata?.namespace ?? ''))
    return false;
  const left = a.metadata?.labels ?? {};
  const right = b.metadata?.labels ?? {};
  if (left === right) return true;
  // Own keys only: `in` would see `toString` on every object, and it is a valid label.
  for (const key in left)
    if (!Object.hasOwn(right, key) || left[key] !== right[key]) return false;
  for (const key in right) if (!Object.hasOwn(left, key)) return false;
  return true;
}

function addMatching(
  matching: VerticalPodAutoscaler[],
  candidates: readonly CompiledCandidate[],
  controller: ControllerKey,
  labels: Readonly<Record<string, string>>,
): void {
  for (const candidate of candidates)
    if (
      targetsPodController(candidate.vpa, controller) &&
      candidate.matcher.matches(labels)
    )
      matching.push(candidate.vpa);
}

function indexCandidates(
  candidates: readonly VpaCandidate[],
): Map<string, NamespaceCandidates> {
  const namespaces = new Map<string, NamespaceCandidates>();
  for (const { vpa, selector } of candidates) {
    if (selector === undefined) continue;
    let matcher: LabelSelectorMatcher;
    try {
      matcher = compileLabelSelector(selector);
    } catch {
      continue;
    }
    const namespace = vpa.metadata?.namespace ?? '';
    const entry: NamespaceCandidates = namespaces.get(namespace) ?? {
      byLabel: new Map(),
      unindexed: [],
    };
    namespaces.set(namespace, entry);
    const compiled = { vpa, matcher };
    const [first] = Object.entries(selector.matchLabels ?? {});
    if (first === undefined) {
      entry.unindexed.push(compiled);
      continue;
    }
    const [key, value] = first;
    let byValue = entry.byLabel.get(key);
    if (byValue === undefined) {
      byValue = new Map();
      entry.byLabel.set(key, byValue);
    }
    const filed = byValue.get(value);
    if (filed === undefined) byValue.set(value, [compiled]);
    else filed.push(compiled);
  }
  return namespaces;
}
