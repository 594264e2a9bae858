import type { RequestAttributes } from './request-attributes.js';

/**
 * The Go apiserver's `forbiddenMessage`, word for word: people search for these
 * sentences, and the HPA copies them into its conditions.
 */
export function forbiddenMessage(
  user: string,
  attributes: RequestAttributes,
): string {
  if ('nonResource' in attributes) {
    const { verb, path } = attributes.nonResource;
    return `User ${quote(user)} cannot ${verb} path ${quote(path)}`;
  }
  const { verb, group, namespace, subresource } = attributes.resource;
  const resource = subresource
    ? `${attributes.resource.resource}/${subresource}`
    : attributes.resource.resource;
  const scope = namespace
    ? `in the namespace ${quote(namespace)}`
    : 'at the cluster scope';
  return `User ${quote(user)} cannot ${verb} resource ${quote(resource)} in API group ${quote(group)} ${scope}`;
}

/**
 * Message and details of the 403 Status the Go apiserver answers (`responsewriters.Forbidden`
 * + `NewForbidden`), e.g. `pods.custom.metrics.k8s.io "*" is forbidden: User "u" cannot get
 * resource "pods/cpu_usage" in API group "custom.metrics.k8s.io" in the namespace "shop"`,
 * with the authorizer's reason appended when it gave one.
 */
export function forbiddenError(
  user: string,
  attributes: RequestAttributes,
  reason: string,
): {
  message: string;
  details?: { name?: string; group?: string; kind: string };
} {
  const detail = reason
    ? `${forbiddenMessage(user, attributes)}: ${reason}`
    : forbiddenMessage(user, attributes);
  if ('nonResource' in attributes) return { message: `forbidden: ${detail}` };
  const { group, resource, name } = attributes.resource;
  const qualified = group ? `${resource}.${group}` : resource;
  return {
    message: name
      ? `${qualified} ${quote(name)} is forbidden: ${detail}`
      : `${qualified} is forbidden: ${detail}`,
    details: {
      ...(name ? { name } : {}),
      ...(group ? { group } : {}),
      kind: resource,
    },
  };
}

/** Go's `%q` for the strings met here (JSON escaping agrees with it on all printable text). */
function quote(text: string): string {
  return JSON.stringify(text);
}
