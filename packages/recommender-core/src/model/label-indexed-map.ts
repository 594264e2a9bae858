import type { Labels, LabelSelectorMatcher } from '@tandem/vpa-api';

/** What the index needs of an entry: where it lives and its (interned) label set. */
export interface Labelled {
  readonly namespace: string;
  readonly labels: Labels;
  /** The canonical text of `labels`; equal texts mean equal label sets. */
  readonly labelText: string;
}

/** The entries of one namespace that share one label set. */
interface LabelGroup<V> {
  readonly labels: Labels;
  readonly entries: Map<string, V>;
}

interface NamespaceIndex<V> {
  /**
   * Renewed whenever a label set appears in or leaves the namespace; drawn from one
   * counter for the whole map, so a namespace emptied and filled again never repeats one.
   */
  generation: number;
  readonly groups: Map<string, LabelGroup<V>>;
}

/** One namespace's label sets by the value they give one label key (see {@link LabelIndexedMap.carrying}). */
interface ByValue<V> {
  readonly index: NamespaceIndex<V>;
  readonly generation: number;
  readonly key: string;
  readonly groups: Map<string, LabelGroup<V>[]>;
}

interface Selection<V> {
  readonly namespace: string;
  readonly generation: number;
  readonly groups: readonly LabelGroup<V>[];
}

/** What selects nothing gets: one shared empty list, never written to. */
const NOTHING_SELECTED: readonly [string, never][] = [];

/**
 * A Map of pods or aggregates that also answers "which entries does this VPA select?"
 * without scanning. Entries are grouped by namespace and label set; a selector is tested
 * once per label set (a Deployment's pods share one), and the groups it selects are
 * remembered per compiled selector until a label set appears in or leaves the namespace.
 * A VPA whose selector and namespace are unchanged since the last cycle then costs only
 * its own entries, so a cycle is linear in the cluster's size rather than quadratic.
 */
export class LabelIndexedMap<V extends Labelled> extends Map<string, V> {
  private readonly namespaces = new Map<string, NamespaceIndex<V>>();
  private readonly selections = new WeakMap<
    LabelSelectorMatcher,
    Selection<V>
  >();
  private lastGeneration = 0;
  /** The last namespace's label sets by one key's values: VPAs come namespace by namespace. */
  private byValue: ByValue<V> | undefined;

  // No initial entries: Map's constructor would call set before the index exists.
  constructor() {
    super();
  }

  override set(key: string, value: V): this {
    this.unindex(key);
    super.set(key, value);
    let index = this.namespaces.get(value.namespace);
    if (index === undefined) {
      index = { generation: this.nextGeneration(), groups: new Map() };
      this.namespaces.set(value.namespace, index);
    }
    let group = index.groups.get(value.labelText);
    if (group === undefined) {
      group = { labels: value.labels, entries: new Map() };
      index.groups.set(value.labelText, group);
      index.generation = this.nextGeneration();
    }
    group.entries.set(key, value);
    return this;
  }

  override delete(key: string): boolean {
    this.unindex(key);
    return super.delete(key);
  }

  override clear(): void {
    this.namespaces.clear();
    this.byValue = undefined;
    super.clear();
  }

  /**
   * The entries of `namespace` whose labels `matcher` selects. `requiredLabel` (`key=value`,
   * see `TrackedVpa.requiredLabel`) is a label every entry it selects carries: only the
   * label sets carrying it are tested.
   */
  selectedBy(
    namespace: string,
    matcher: LabelSelectorMatcher,
    requiredLabel?: string,
  ): Iterable<[string, V]> {
    const groups = this.selectedGroups(namespace, matcher, requiredLabel);
    // A VPA mostly selects one label set (its workload's): hand that group out as it is.
    // Indexed, not destructured: `[only, ...more]` made an iterator and an array on each of
    // the three calls per VPA a cycle (300,000 at 100,000 VPAs).
    const only = groups[0];
    if (only === undefined) return NOTHING_SELECTED;
    if (groups.length === 1) return only.entries;
    return groups.flatMap((group) => [...group.entries]);
  }

  /** How many entries {@link selectedBy} gives, without listing them. */
  countSelectedBy(
    namespace: string,
    matcher: LabelSelectorMatcher,
    requiredLabel?: string,
  ): number {
    return this.selectedGroups(namespace, matcher, requiredLabel).reduce(
      (count, group) => count + group.entries.size,
      0,
    );
  }

  private selectedGroups(
    namespace: string,
    matcher: LabelSelectorMatcher,
    requiredLabel: string | undefined,
  ): readonly LabelGroup<V>[] {
    const index = this.namespaces.get(namespace);
    if (index === undefined) return [];
    let selection = this.selections.get(matcher);
    if (
      selection?.namespace !== namespace ||
      selection.generation !== index.generation
    ) {
      selection = {
        namespace,
        generation: index.generation,
        groups: (requiredLabel === undefined
          ? [...index.groups.values()]
          : this.carrying(index, requiredLabel)
        ).filter((group) => matcher.matches(group.labels)),
      };
      this.selections.set(matcher, selection);
    }
    return selection.groups;
  }

  /**
   * The label sets of a namespace carrying `key=value`, in the namespace's order. A first
   * cycle selects for every VPA anew, and testing each against every label set of its
   * namespace (100 VPAs and 100 label sets a namespace in the recommender-cycle bench) was
   * a fifth of the garbage it made; the namespace's sets are sorted by the key's value
   * once, for all its VPAs keyed by that key.
   */
  private carrying(
    index: NamespaceIndex<V>,
    requiredLabel: string,
  ): readonly LabelGroup<V>[] {
    const split = requiredLabel.indexOf('=');
    const key = requiredLabel.slice(0, split);
    let byValue = this.byValue;
    if (
      byValue?.index !== index ||
      byValue.generation !== index.generation ||
      byValue.key !== key
    ) {
      byValue = { index, generation: index.generation, key, groups: new Map() };
      for (const group of index.groups.values()) {
        const value = group.labels[key];
        if (value === undefined) continue;
        const same = byValue.groups.get(value);
        if (same === undefined) byValue.groups.set(value, [group]);
        else same.push(group);
      }
      this.byValue = byValue;
    }
    return byValue.groups.get(requiredLabel.slice(split + 1)) ?? [];
  }

  private nextGeneration(): number {
    this.lastGeneration += 1;
    return this.lastGeneration;
  }

  private unindex(key: string): void {
    const previous = super.get(key);
    if (previous === undefined) return;
    const index = this.namespaces.get(previous.namespace);
    const group = index?.groups.get(previous.labelText);
    if (index === undefined || group === undefined) return;
    group.entries.delete(key);
    if (group.entries.size > 0) return;
    index.groups.delete(previous.labelText);
    index.generation = this.nextGeneration();
    if (index.groups.size === 0) this.namespaces.delete(previous.namespace);
  }
}
