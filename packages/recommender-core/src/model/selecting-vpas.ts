import type { Labels } from '@tandem/vpa-api';
import type { TrackedVpa } from './tracked-vpa.js';

interface NamespaceVpas {
  /** By the `key=value` every pod they select carries (see {@link TrackedVpa.requiredLabel}). */
  readonly byLabel: Map<string, TrackedVpa[]>;
  /** Those without one: tested against every label set of the namespace. */
  readonly unkeyed: TrackedVpa[];
}

/**
 * Which VPAs select a label set, without testing every VPA of its namespace: a VPA whose
 * selector requires a label (a `matchLabels` entry, as every Deployment's has) can only
 * select label sets that carry it, so only the VPAs keyed by one of the set's own labels,
 * and those keyed by none, are tested. Built from one picture of the VPAs; the model builds
 * it again when a VPA comes, goes or changes its selector. Testing every VPA of the
 * namespace against every new label set was a fifth of a first cycle at 100 VPAs a namespace.
 */
export class SelectingVpas {
  private readonly namespaces = new Map<string, NamespaceVpas>();

  constructor(vpas: Iterable<TrackedVpa>) {
    for (const vpa of vpas) {
      if (vpa.podSelector === undefined) continue;
      let namespace = this.namespaces.get(vpa.namespace);
      if (namespace === undefined) {
        namespace = { byLabel: new Map(), unkeyed: [] };
        this.namespaces.set(vpa.namespace, namespace);
      }
      if (vpa.requiredLabel === undefined) {
        namespace.unkeyed.push(vpa);
        continue;
      }
      const keyed = namespace.byLabel.get(vpa.requiredLabel);
      if (keyed === undefined) namespace.byLabel.set(vpa.requiredLabel, [vpa]);
      else keyed.push(vpa);
    }
  }

  /**
   * The keys of the VPAs of `namespace` whose selector matches `labels`, sorted. Called
   * once per new label set (10,000 on a first cycle at 10,000 VPAs), while the code is
   * cold: no closure, and the list sorted only when it holds more than one key.
   */
  keysSelecting(namespace: string, labels: Labels): string[] {
    const vpas = this.namespaces.get(namespace);
    if (vpas === undefined) return [];
    const keys: string[] = [];
    addMatching(vpas.unkeyed, labels, keys);
    // A label set holds each key once, and a VPA is keyed by one pair: no VPA comes twice.
    for (const key in labels) {
      const keyed = vpas.byLabel.get(labelPair(key, labels[key] ?? ''));
      if (keyed !== undefined) addMatching(keyed, labels, keys);
    }
    return keys.length > 1 ? keys.sort() : keys;
  }
}

/** Adds to `keys` the keys of the `candidates` whose selector matches `labels`. */
function addMatching(
  candidates: readonly TrackedVpa[],
  labels: Labels,
  keys: string[],
): void {
  for (let index = 0; index < candidates.length; index++) {
    const vpa = candidates[index];
    if (vpa?.podSelector?.matches(labels) === true) keys.push(vpa.key);
  }
}

/** `key=value`: neither a label key nor a label value may contain `=`. */
export function labelPair(key: string, value: string): string {
  return `${key}=${value}`;
}
