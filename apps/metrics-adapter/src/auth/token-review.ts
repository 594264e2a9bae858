import { createHash } from 'node:crypto';
import {
  AuthenticationV1Api,
  type KubeConfig,
  type V1TokenReview,
} from '@kubernetes/client-node';
import { describeError } from '@tandem/kube';
import type { Authentication } from './caller.js';
import { withDeadline } from './deadline.js';
import { reviewCache } from './review-cache.js';
import {
  REVIEW_TIMEOUT_MS,
  REVIEW_TTL_MS,
  type ReviewerOptions,
} from './reviewer-options.js';

/**
 * Authenticates bearer tokens with a TokenReview (authentication.k8s.io/v1), as Go's
 * delegating token authenticator does. Both outcomes are cached for `ttlMs` under the
 * token's SHA-256, so the token itself is kept nowhere and never logged. A failed call
 * (API server down, RBAC missing) rejects, with a message free of the token; the caller
 * turns that into a 503, since the token may well be good.
 */
export function tokenReviewer(
  kubeConfig: KubeConfig,
  options: ReviewerOptions = {},
): (token: string) => Promise<Authentication> {
  const api = kubeConfig.makeApiClient(AuthenticationV1Api);
  const timeoutMs = options.timeoutMs ?? REVIEW_TIMEOUT_MS;
  return reviewCache<string, Authentication>({
    ttlMs: options.ttlMs ?? REVIEW_TTL_MS,
    now: options.now,
    keyOf: (token) => createHash('sha256').update(token).digest('hex'),
    review: async (token) => {
      let review: V1TokenReview;
      try {
        review = await withDeadline(
          api.createTokenReview({ body: tokenReviewBody(token) }),
          timeoutMs,
          'TokenReview',
        );
      } catch (error) {
        throw new Error(`TokenReview failed: ${describeError(error)}`);
      }
      return authenticationOf(review);
    },
  });
}

export function tokenReviewBody(token: string): V1TokenReview {
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec: { token },
  };
}

/** The answer, read as Go's webhook token authenticator reads it. */
export function authenticationOf(review: V1TokenReview): Authentication {
  const status = review.status;
  if (status?.authenticated !== true)
    return {
      ok: false,
      reason: status?.error
        ? `TokenReview: ${status.error}`
        : 'TokenReview: token not authenticated',
    };
  const user = status.user;
  if (!user?.username)
    return {
      ok: false,
      reason: 'TokenReview: authenticated without a username',
    };
  return {
    ok: true,
    caller: {
      user: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      groups: user.groups ?? [],
      extra: user.extra ?? {},
      via: 'token',
    },
  };
}
