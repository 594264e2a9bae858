/** The part of an APIService's spec that says where the aggregator sends its requests. */
export interface ApiServiceRoute {
  service?: { name?: string; namespace?: string; port?: number };
}

/** `https://<name>.<namespace>.svc:<port>`, where the APIService routes; undefined for none. */
export function routedTo(
  spec: ApiServiceRoute | undefined,
): string | undefined {
  const service = spec?.service;
  if (service?.name === undefined || service.namespace === undefined)
    return undefined;
  return `https://${service.name}.${service.namespace}.svc:${service.port ?? 443}`;
}

/**
 * Whether an APIService routes to a Service other than this adapter's (`ownHost`, the
 * `<service>.<namespace>.svc` its serving certificate names): another provider's. The
 * adapter then leaves it alone, never writing its CA there, which would break that
 * provider's every request (ADR 0022).
 */
export function isRoutedElsewhere(
  spec: ApiServiceRoute | undefined,
  ownHost: string,
): boolean {
  const target = routedTo(spec);
  return target !== undefined && new URL(target).hostname !== ownHost;
}

/** What to log for such an APIService, with the remedy. */
export function routedElsewhereMessage(
  apiService: string,
  spec: ApiServiceRoute | undefined,
  ownHost: string,
): string {
  const target = routedTo(spec) ?? 'another Service';
  return `APIService ${apiService} routes to ${target}, not to this adapter (${ownHost}): another custom metrics provider serves the group, so its caBundle is left as it is and Tandem's metrics are not reachable through the aggregator. To serve them beside that provider, install with deploy/upstream-provider (--upstream-provider=${target}, its CA in --upstream-provider-ca-file; ADR 0022)`;
}
