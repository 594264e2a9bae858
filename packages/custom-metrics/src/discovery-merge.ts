/** One entry of an APIResourceList, as far as merging reads it. */
interface ResourceEntry {
  name: string;
  [field: string]: unknown;
}

export interface MergedDiscovery {
  /** Tandem's APIResourceList with the upstream's other resources appended. */
  list: object;
  /** Upstream resources dropped because Tandem serves the same name. */
  shadowed: string[];
}

/**
 * `GET /apis/custom.metrics.k8s.io/<v>` with an upstream provider (ADR 0022): Tandem's
 * resources, then every upstream resource whose name Tandem does not list. On a clash
 * Tandem's entry wins, as `isServedByTandem` sends those reads to Tandem; the dropped
 * names are returned so the app can say which upstream metrics are hidden. An upstream
 * answer that is not an APIResourceList (an error Status, HTML, a truncated body) adds
 * nothing: discovery must never fail because of the upstream.
 */
export function mergeDiscovery(
  tandem: object,
  upstream: unknown,
): MergedDiscovery {
  const own = resourcesOf(tandem);
  const ownNames = new Set(own.map((resource) => resource.name));
  const shadowed: string[] = [];
  const added: ResourceEntry[] = [];
  const seen = new Set<string>();
  for (const resource of resourcesOf(upstream)) {
    if (seen.has(resource.name)) continue;
    seen.add(resource.name);
    if (ownNames.has(resource.name)) shadowed.push(resource.name);
    else added.push(resource);
  }
  return {
    list: { ...tandem, resources: [...own, ...added] },
    shadowed,
  };
}

function resourcesOf(list: unknown): ResourceEntry[] {
  if (typeof list !== 'object' || list === null) return [];
  const { kind, resources } = list as { kind?: unknown; resources?: unknown };
  if (kind !== 'APIResourceList' || !Array.isArray(resources)) return [];
  return resources.filter(
    (resource): resource is ResourceEntry =>
      typeof resource === 'object' &&
      resource !== null &&
      typeof (resource as { name?: unknown }).name === 'string' &&
      (resource as { name: string }).name !== '',
  );
}
