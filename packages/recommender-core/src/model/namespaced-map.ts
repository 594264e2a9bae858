/**
 * A Map keyed by `namespace/…` strings that also finds the entries of one namespace without
 * scanning the others. A VPA only ever selects pods and aggregates of its own namespace, so
 * per-VPA lookups cost the size of that namespace instead of the whole cluster (which made
 * a cycle quadratic in the number of VPAs). Iteration order within a namespace is the
 * Map's own insertion order, so results are the same as filtering the whole Map.
 */
export class NamespacedMap<V> extends Map<string, V> {
  private readonly byNamespace = new Map<string, Map<string, V>>();

  // No initial entries: Map's constructor would call set before byNamespace exists.
  constructor() {
    super();
  }

  override set(key: string, value: V): this {
    super.set(key, value);
    const namespace = namespaceOf(key);
    let entries = this.byNamespace.get(namespace);
    if (entries === undefined) {
      entries = new Map();
      this.byNamespace.set(namespace, entries);
    }
    entries.set(key, value);
    return this;
  }

  override delete(key: string): boolean {
    const namespace = namespaceOf(key);
    const entries = this.byNamespace.get(namespace);
    entries?.delete(key);
    if (entries?.size === 0) this.byNamespace.delete(namespace);
    return super.delete(key);
  }

  override clear(): void {
    this.byNamespace.clear();
    super.clear();
  }

  /** The entries whose key starts with `namespace/`, in insertion order. */
  inNamespace(namespace: string): Iterable<[string, V]> {
    return this.byNamespace.get(namespace) ?? [];
  }
}

function namespaceOf(key: string): string {
  // '/' cannot occur in a namespace name, so the first one ends it.
  return key.slice(0, key.indexOf('/'));
}
