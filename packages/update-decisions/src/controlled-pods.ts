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

/**
 * Each live pod's controlling VPA among `candidates` (the VPAs the updater acts on, with
 * their targets' selectors), as upstream's `GetControllingVPAForPod` picks it and by the
 * webhook's rule (`@tandem/admission`'s `targetsPodController` and `controllingVpa`): the
 * VPAs of the pod's namespace that target its top-most controller (`controllerOf`; a pod
 * without one is controlled by none) and whose selector matches its labels, then the
 * oldest, then the smallest name. A candidate without a selector, or with one that does
 * not compile, controls nothing.
 *
 * A selector is compiled once and filed under one of its `matchLabels` pairs, so a pod is
 * only tried against the selectors that share one of its labels: with thousands of VPAs
 * in a namespace, a cycle stays linear in pods.
 */
export function podsByControllingVpa(
  candidates: readonly VpaCandidate[],
  pods: Iterable<UpdaterPod>,
  controllerOf: (pod: UpdaterPod) => ControllerKey | undefined,
): Map<VerticalPodAutoscaler, UpdaterPod[]> {
  const namespaces = indexCandidates(candidates);
  const controlled = new Map<VerticalPodAutoscaler, UpdaterPod[]>();
  // Reused for every pod: this loop runs for each pod of the cluster every cycle, and
  // the arrays it used to build per pod were a fifth of a steady cycle's time.
  const matching: VerticalPodAutoscaler[] = [];
  for (const pod of pods) {
    const inNamespace = namespaces.get(pod.metadata?.namespace ?? '');
    if (inNamespace === undefined) continue;
    const controller = controllerOf(pod);
    if (controller === undefined) continue;
    const labels = pod.metadata?.labels ?? {};
    matching.length = 0;
    addMatching(matching, inNamespace.unindexed, controller, labels);
    for (const key in labels) {
      const filed = inNamespace.byLabel.get(key)?.get(labels[key] ?? '');
      if (filed !== undefined) addMatching(matching, filed, controller, labels);
    }
    const vpa = controllingVpa(matching);
    if (vpa === undefined) continue;
    const list = controlled.get(vpa);
    if (list === undefined) controlled.set(vpa, [pod]);
    else list.push(pod);
  }
  return controlled;
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
