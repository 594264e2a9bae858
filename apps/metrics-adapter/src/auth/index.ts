export {
  AUTHENTICATION_CONFIGMAP,
  parseAuthenticationConfig,
  type RequestHeaderConfig,
} from './authentication-config.js';
export {
  followAuthenticationConfig,
  type FollowAuthenticationConfigOptions,
} from './follow-authentication-config.js';
export type { Authentication, Caller } from './caller.js';
export {
  authenticateFrontProxy,
  frontProxyIdentity,
  type FrontProxyInput,
  type HeaderValues,
} from './front-proxy.js';
export { bearerToken } from './bearer-token.js';
export { tokenReviewBody, tokenReviewer } from './token-review.js';
export { isProbePath, type RequestAttributes } from './request-attributes.js';
export {
  subjectAccessReviewBody,
  subjectAccessReviewer,
  type Decision,
} from './subject-access-review.js';
export {
  REVIEW_TIMEOUT_MS,
  REVIEW_TTL_MS,
  type ReviewerOptions,
} from './reviewer-options.js';
export { forbiddenError, forbiddenMessage } from './forbidden.js';
export {
  delegatedAuth,
  type AuthOutcome,
  type DelegatedAuthOptions,
} from './delegated-auth.js';
