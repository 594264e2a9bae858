import { VPA_API_GROUP } from '@tandem/vpa-api';
import type { ReviewedResource } from './admission-types.js';
import type { ReviewRequest } from './review-request.js';

const VPA_RESOURCE = 'verticalpodautoscalers';
const VPA_KIND = 'VerticalPodAutoscaler';

/**
 * What the request is about. Upstream dispatches on `request.resource` (group and resource);
 * `request.kind` is accepted as well for callers that only set that.
 */
export function reviewedResource(request: ReviewRequest): ReviewedResource {
  const { resource, kind } = request;
  if (
    (resource.group === '' && resource.resource === 'pods') ||
    (kind.group === '' && kind.kind === 'Pod')
  ) {
    return 'Pod';
  }
  if (
    (resource.group === VPA_API_GROUP && resource.resource === VPA_RESOURCE) ||
    (kind.group === VPA_API_GROUP && kind.kind === VPA_KIND)
  ) {
    return 'VPA';
  }
  return 'unknown';
}

/** `group/version resource` for messages, e.g. `apps/v1 deployments`. */
export function describeResource(request: ReviewRequest): string {
  const { resource, kind } = request;
  const group = resource.group ?? kind.group;
  const version = resource.version ?? kind.version ?? '?';
  const name = resource.resource ?? kind.kind ?? '?';
  const groupVersion = group ? `${group}/${version}` : version;
  return `${groupVersion} ${name}${request.subResource ? `/${request.subResource}` : ''}`;
}
