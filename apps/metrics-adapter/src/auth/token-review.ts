import { createHash } from 'node:crypto';
import type { V1TokenReview } from '@kubernetes/client-node';
import {
  describeError,
  kubeSendJson,
  TokenBucket,
  type KubeConnection,
} from '@tandem/kube';
import type { Authentication } from './caller.js';
import { withDeadline } from './deadline.js';
import { reviewCache } from './review-cache.js';
import {
  REVIEW_TIMEOUT_MS,
  REVIEW_TTL_MS,
  type ReviewerOptions,
} from './reviewer-options.js';

/**
 * TokenReviews sent for tokens not in the cache, at most, per second (and in one burst).
 * Every other caller of the adapter is the aggregator (front-proxy certificate, no review)
 * or a scraper reusing one token (cached for 10 s), so honest traffic stays far below this;
 * without it, a client with no credentials at all could make the adapter send the API
 * server one TokenReview per random token, as fast as it can send requests.
 */
export const TOKEN_REVIEW_RATE = { perSecond: 10, burst: 20 } as const;

/** A token not reviewed because the review budget is spent: answered 429, never cached. */
export class TokenReviewsThrottled extends Error {
  /** A token comes back within a second at the lowest rate worth setting. */
  readonly retryAfterSeconds = 1;

  constructor() {
    super(
      `more than ${TOKEN_REVIEW_RATE.perSecond} new bearer tokens a second to review`,
    );
    this.name = 'TokenReviewsThrottled';
  }
}

/**
 * Authenticates bearer tokens with a TokenReview (authentication.k8s.io/v1), as Go's
 * delegating token authenticator does. Both outcomes are cached for `ttlMs` under the
 * token's SHA-256, so the token itself is kept nowhere and never logged. A failed call
 * (API server down, RBAC missing) rejects, with a message free of the token; the caller
 * turns that into a 503, since the token may well be good. Reviews of new tokens are
 * bounded by `TOKEN_REVIEW_RATE`: past it, the lookup rejects with `TokenReviewsThrottled`.
 */
export function tokenReviewer(
  connection: KubeConnection,
  options: ReviewerOptions = {},
): (token: string) => Promise<Authentication> {
  const send = kubeSendJson(connection);
  const timeoutMs = options.timeoutMs ?? REVIEW_TIMEOUT_MS;
  const budget = new TokenBucket(
    TOKEN_REVIEW_RATE.perSecond,
    TOKEN_REVIEW_RATE.burst,
    options.now,
  );
  return reviewCache<string, Authentication>({
    ttlMs: options.ttlMs ?? REVIEW_TTL_MS,
    now: options.now,
    keyOf: (token) => createHash('sha256').update(token).digest('hex'),
    review: async (token) => {
      if (budget.reserve(0) === undefined) throw new TokenReviewsThrottled();
      let review: V1TokenReview;
      try {
        review = (await withDeadline(
          send(
            'POST',
            '/apis/authentication.k8s.io/v1/tokenreviews',
            tokenReviewBody(token),
          ),
          timeoutMs,
          'TokenReview',
        )) as V1TokenReview;
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
