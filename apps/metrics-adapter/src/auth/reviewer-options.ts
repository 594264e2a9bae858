/** Options shared by the TokenReview and SubjectAccessReview clients. */
export interface ReviewerOptions {
  /** How long an answer is reused; default 10 s (Go's delegating default). */
  ttlMs?: number;
  now?: () => number;
  /** How long one review may take; default 10 s (Go's webhook client timeout). */
  timeoutMs?: number;
}

export const REVIEW_TTL_MS = 10_000;
export const REVIEW_TIMEOUT_MS = 10_000;
