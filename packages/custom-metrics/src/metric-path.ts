import {
  CUSTOM_METRICS_GROUP,
  isCustomMetricsVersion,
  type CustomMetricsVersion,
} from './api-group.js';

/** What a request path asks for (reference §1.3). */
export type MetricRequest =
  | { kind: 'discovery-root' }
  | { kind: 'discovery-group' }
  | { kind: 'discovery-version'; version: CustomMetricsVersion }
  | {
      kind: 'pods';
      version: CustomMetricsVersion;
      namespace: string;
      /** A pod name, or `*` for every pod the labelSelector picks. */
      name: string;
      metric: string;
    }
  | {
      kind: 'other-object';
      version: CustomMetricsVersion;
      /** Absent for root-scoped objects (nodes, namespaces…). */
      namespace?: string;
      /** Plural, group-qualified outside the core group: `deployments.apps`. */
      resource: string;
      name: string;
      metric: string;
    }
  | { kind: 'not-found' };

/** Go's `AllObjects`; clients and logs may carry it escaped. */
const ALL_OBJECTS = '*';
const ESCAPED_ALL_OBJECTS = /^%2a$/i;

const NOT_FOUND: MetricRequest = { kind: 'not-found' };

/**
 * Routes a request path (without query string, each segment already URL-decoded) the way
 * custom-metrics-apiserver's route templates do:
 *
 * - `/apis`, `/apis/custom.metrics.k8s.io`, `/apis/custom.metrics.k8s.io/<v>`: discovery;
 * - `<v>/namespaces/{ns}/pods/{name}/{metric}`: pods, the one shape the HPA's `Pods`
 *   metrics use;
 * - `<v>/namespaces/{ns}/{resource}/{name}/{metric}`: any other namespaced object;
 * - `<v>/namespaces/{ns}/metrics/{metric}`: the namespace `ns` itself, reported as the
 *   root-scoped object `namespaces/{ns}`;
 * - `<v>/{resource}/{name}/{metric}`: a root-scoped object.
 *
 * One trailing slash is tolerated. Anything else, including an empty segment, another
 * group or an unknown version, is `not-found`.
 */
export function parseMetricPath(path: string): MetricRequest {
  const segments = splitPath(path);
  if (segments === undefined || segments[0] !== 'apis') return NOT_FOUND;
  if (segments.length === 1) return { kind: 'discovery-root' };
  if (segments[1] !== CUSTOM_METRICS_GROUP) return NOT_FOUND;
  if (segments.length === 2) return { kind: 'discovery-group' };
  const version = segments[2] ?? '';
  if (!isCustomMetricsVersion(version)) return NOT_FOUND;
  return routeInVersion(version, segments.slice(3));
}

function routeInVersion(
  version: CustomMetricsVersion,
  rest: readonly string[],
): MetricRequest {
  switch (rest.length) {
    case 0:
      return { kind: 'discovery-version', version };
    case 3: {
      const [resource = '', name = '', metric = ''] = rest;
      return { kind: 'other-object', version, resource, name, metric };
    }
    case 4: {
      const [namespaces, namespace = '', metrics, metric = ''] = rest;
      if (namespaces !== 'namespaces' || metrics !== 'metrics')
        return NOT_FOUND;
      return {
        kind: 'other-object',
        version,
        resource: 'namespaces',
        name: namespace,
        metric,
      };
    }
    case 5: {
      const [
        namespaces,
        namespace = '',
        resource = '',
        name = '',
        metric = '',
      ] = rest;
      if (namespaces !== 'namespaces') return NOT_FOUND;
      if (resource === 'pods') {
        return { kind: 'pods', version, namespace, name, metric };
      }
      return {
        kind: 'other-object',
        version,
        namespace,
        resource,
        name,
        metric,
      };
    }
    default:
      return NOT_FOUND;
  }
}

/** The path's segments, `%2A` read as `*`; undefined when one is empty (`//`). */
function splitPath(path: string): string[] | undefined {
  if (!path.startsWith('/')) return undefined;
  const trimmed =
    path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const segments = trimmed.slice(1).split('/');
  if (segments.some((segment) => segment === '')) return undefined;
  return segments.map((segment) =>
    ESCAPED_ALL_OBJECTS.test(segment) ? ALL_OBJECTS : segment,
  );
}
