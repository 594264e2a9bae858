import {
  CUSTOM_METRICS_VERSIONS,
  type CustomMetricsVersion,
} from './api-group.js';
import { apiResourceList } from './discovery.js';
import type { MetricRequest } from './metric-path.js';

/** A discovery resource: `<resource>/<metric>`, namespaced or not. */
export interface DiscoveredResource {
  name: string;
  namespaced: boolean;
}

/** Tandem's own discovery resources per version, read once: discovery is constant. */
const TANDEM_RESOURCES = new Map(
  CUSTOM_METRICS_VERSIONS.map((version) => [
    version,
    new Map(
      (
        apiResourceList(version) as { resources: DiscoveredResource[] }
      ).resources.map((resource) => [resource.name, resource.namespaced]),
    ),
  ]),
);

/**
 * Whether Tandem answers a request itself, or (with `--upstream-provider`) passes it to the
 * provider the cluster already had (ADR 0022). One rule for both sides: a metric read is
 * Tandem's exactly when its `<resource>/<metric>` is in Tandem's own discovery list
 * (`apiResourceList`) with the same scope, so serving a new metric or object kind there
 * takes it from the upstream without a second list to keep in step. Discovery and paths
 * outside the group (`not-found`) are always Tandem's: the aggregator's availability check
 * and kubectl depend on them.
 */
export function isServedByTandem(request: MetricRequest): boolean {
  if (request.kind !== 'pods' && request.kind !== 'other-object') return true;
  const resource = request.kind === 'pods' ? 'pods' : request.resource;
  // A namespace's own metrics (`namespaces/{ns}/metrics/{m}`) parse as the root-scoped
  // object `namespaces/{ns}`: no namespace, so not namespaced.
  const namespaced = request.kind === 'pods' || request.namespace !== undefined;
  return (
    tandemScopeOf(request.version, `${resource}/${request.metric}`) ===
    namespaced
  );
}

function tandemScopeOf(
  version: CustomMetricsVersion,
  name: string,
): boolean | undefined {
  return TANDEM_RESOURCES.get(version)?.get(name);
}
