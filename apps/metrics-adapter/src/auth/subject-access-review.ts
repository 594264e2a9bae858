import type { V1SubjectAccessReview } from '@kubernetes/client-node';
import { describeError, kubeSendJson, type KubeConnection } from '@tandem/kube';
import type { Caller } from './caller.js';
import { withDeadline } from './deadline.js';
import { isProbePath, type RequestAttributes } from './request-attributes.js';
import { reviewCache } from './review-cache.js';
import {
  REVIEW_TIMEOUT_MS,
  REVIEW_TTL_MS,
  type ReviewerOptions,
} from './reviewer-options.js';

export interface Decision {
  allowed: boolean;
  /** The authorizer's explanation; may be empty. */
  reason: string;
}

/** Go's `AlwaysAllowGroups` default: cluster admins skip the review. */
const PRIVILEGED_GROUP = 'system:masters';

/**
 * Authorizes with a SubjectAccessReview (authorization.k8s.io/v1), as Go's delegating
 * authorizer does: probe paths and `system:masters` are allowed without asking, other
 * decisions, allowed and denied alike, are cached for `ttlMs` per caller and attributes.
 * A failed call rejects (not cached); the caller answers 503.
 */
export function subjectAccessReviewer(
  connection: KubeConnection,
  options: ReviewerOptions = {},
): (caller: Caller, attributes: RequestAttributes) => Promise<Decision> {
  const send = kubeSendJson(connection);
  const timeoutMs = options.timeoutMs ?? REVIEW_TIMEOUT_MS;
  const review = reviewCache<V1SubjectAccessReview, Decision>({
    ttlMs: options.ttlMs ?? REVIEW_TTL_MS,
    now: options.now,
    // The body holds exactly what the decision depends on.
    keyOf: (body) => JSON.stringify(body.spec),
    review: async (body) => {
      let answer: V1SubjectAccessReview;
      try {
        answer = (await withDeadline(
          send(
            'POST',
            '/apis/authorization.k8s.io/v1/subjectaccessreviews',
            body,
          ),
          timeoutMs,
          'SubjectAccessReview',
        )) as V1SubjectAccessReview;
      } catch (error) {
        throw new Error(`SubjectAccessReview failed: ${describeError(error)}`);
      }
      return decisionOf(answer);
    },
  });
  return (caller, attributes) => {
    const always = alwaysAllowed(caller, attributes);
    if (always !== undefined) return Promise.resolve(always);
    return review(subjectAccessReviewBody(caller, attributes));
  };
}

function alwaysAllowed(
  caller: Caller,
  attributes: RequestAttributes,
): Decision | undefined {
  if ('nonResource' in attributes && isProbePath(attributes.nonResource.path))
    return { allowed: true, reason: 'probe paths are always allowed' };
  if (caller.groups.includes(PRIVILEGED_GROUP))
    return {
      allowed: true,
      reason: `group ${PRIVILEGED_GROUP} is always allowed`,
    };
  return undefined;
}

/**
 * The review Go's webhook authorizer sends: the caller as authenticated, and either
 * resource or non-resource attributes. Empty optional fields are left out, as Go's
 * `omitempty` does, so the API server sees the same question either way.
 */
export function subjectAccessReviewBody(
  caller: Caller,
  attributes: RequestAttributes,
): V1SubjectAccessReview {
  const spec: V1SubjectAccessReview['spec'] = {
    user: caller.user,
    ...(caller.uid ? { uid: caller.uid } : {}),
    groups: caller.groups,
    ...(Object.keys(caller.extra).length > 0 ? { extra: caller.extra } : {}),
  };
  if ('nonResource' in attributes) {
    const { path, verb } = attributes.nonResource;
    spec.nonResourceAttributes = { path, verb };
  } else {
    const { namespace, verb, group, version, resource, subresource, name } =
      attributes.resource;
    spec.resourceAttributes = {
      ...(namespace ? { namespace } : {}),
      verb,
      group,
      version,
      resource,
      ...(subresource ? { subresource } : {}),
      ...(name ? { name } : {}),
    };
  }
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec,
  };
}

/** Go's webhook authorizer: allowed, or denied / no opinion (both refuse here). */
export function decisionOf(review: V1SubjectAccessReview): Decision {
  const status = review.status;
  return {
    allowed: status?.allowed === true && status.denied !== true,
    reason: status?.reason ?? '',
  };
}
