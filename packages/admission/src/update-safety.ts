import {
  parseQuantity,
  type Container,
  type ResourceList,
} from '@tandem/vpa-api';
import { updateTarget, type ContainerUpdate } from './container-updates.js';

/**
 * Why applying `update` to `container` would make the pod one the API server rejects, or
 * undefined. Upstream writes whatever its maths yields; a negative value or a request above
 * its limit (e.g. from a hand-edited VPA status) would then fail the pod's creation. Here the
 * pod is let through unchanged instead. Throws `QuantityError` for a malformed quantity.
 */
export function unsafeUpdate(
  container: Container,
  update: ContainerUpdate,
): string | undefined {
  for (const [field, values] of [
    ['request', update.requests],
    ['limit', update.limits],
  ] as const) {
    for (const [resource, text] of Object.entries(values)) {
      if (parseQuantity(text).sign() < 0) {
        return `${updateTarget(update)}: negative ${resource} ${field} ${text}`;
      }
    }
  }
  const requests: ResourceList = {
    ...container.resources?.requests,
    ...update.requests,
  };
  const limits: ResourceList = {
    ...container.resources?.limits,
    ...update.limits,
  };
  // Only resources the update touches: a pod that was already invalid stays the API
  // server's to reject.
  const touched = new Set([
    ...Object.keys(update.requests),
    ...Object.keys(update.limits),
  ]);
  for (const resource of touched) {
    const request = Object.hasOwn(requests, resource)
      ? requests[resource]
      : undefined;
    const limit = Object.hasOwn(limits, resource)
      ? limits[resource]
      : undefined;
    if (
      request !== undefined &&
      limit !== undefined &&
      parseQuantity(request).cmp(parseQuantity(limit)) > 0
    ) {
      return `${updateTarget(update)}: ${resource} request ${request} would exceed its limit ${limit}`;
    }
  }
  return undefined;
}
