/** Who sent a request, as the Go apiserver's `user.Info`, and how we came to know. */
export interface Caller {
  user: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
  /** `front-proxy`: X-Remote-* headers from the aggregator; `token`: a TokenReview. */
  via: 'front-proxy' | 'token';
}

/** The outcome of one authentication method; `reason` is for logs, never sent back. */
export type Authentication =
  | { ok: true; caller: Caller }
  | { ok: false; reason: string };
