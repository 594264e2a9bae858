import type { TLSSocket } from 'node:tls';
import { status, type StatusCode } from '@tandem/custom-metrics';
import { describeError } from '@tandem/kube';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import {
  AUTHENTICATION_CONFIGMAP,
  type RequestHeaderConfig,
} from './authentication-config.js';
import { bearerToken } from './bearer-token.js';
import type { Authentication, Caller } from './caller.js';
import { frontProxyIdentity, isFrontProxyHeader } from './front-proxy.js';
import { isProbePath, type RequestAttributes } from './request-attributes.js';
import { forbiddenError } from './forbidden.js';
import type { Decision } from './subject-access-review.js';
import { TokenReviewsThrottled } from './token-review.js';

const AUTHENTICATED_GROUP = 'system:authenticated';

/** One per request that is not a probe. */
export type AuthOutcome =
  | 'authenticated'
  | 'unauthenticated'
  | 'forbidden'
  | 'throttled'
  | 'error';

export interface DelegatedAuthOptions {
  /** The front-proxy configuration now in force; undefined until it was read. */
  config: () => RequestHeaderConfig | undefined;
  reviewToken: (token: string) => Promise<Authentication>;
  authorize: (
    caller: Caller,
    attributes: RequestAttributes,
  ) => Promise<Decision>;
  /** What the request asks to do; a throw goes to Express's error handling. */
  attributesOf: (req: Request) => RequestAttributes;
  /** `authenticated` means "let through": authenticated and authorized. */
  count?: (outcome: AuthOutcome) => void;
  logger: Logger;
}

/**
 * Authentication and authorization as an aggregated API server does them: the caller is
 * the aggregator's front-proxy identity, else a bearer token's TokenReview, else 401; then
 * a SubjectAccessReview decides (403 when denied). Errors are `metav1.Status` bodies, as
 * the HPA and kubectl expect. When a review cannot be made at all (API server down, RBAC
 * for this adapter missing) the answer is 503 with the cause: 401/403 would blame the
 * caller, and 500 would hide what to fix. New bearer tokens past the TokenReview budget
 * get 429 with Retry-After. Probe paths skip all of it, since kubelets probe without
 * credentials. On success `res.locals.caller` is the Caller.
 */
export function delegatedAuth(options: DelegatedAuthOptions): RequestHandler {
  const { logger } = options;
  const count = (outcome: AuthOutcome) => options.count?.(outcome);
  const fail = (
    res: Response,
    outcome: AuthOutcome,
    failure: Failure,
    log: Record<string, unknown>,
  ) => {
    count(outcome);
    const { code, reason, message, details, retryAfterSeconds } = failure;
    if (outcome === 'error') logger.warn(log, message);
    // A flood of random tokens is what throttling answers: one log line each would be the
    // flood's second victim; the outcome counter says how many.
    else if (outcome !== 'throttled') logger.info(log, message);
    if (retryAfterSeconds !== undefined)
      res.set('Retry-After', String(retryAfterSeconds));
    res
      .status(code)
      .set('X-Content-Type-Options', 'nosniff')
      .json(status(code, reason, message, details));
  };

  return async (req, res, next) => {
    if (isProbePath(req.path)) return next();
    const request = { method: req.method, path: req.path };
    const config = options.config();

    let caller: Caller | undefined;
    let notFrontProxy = '';
    if (config === undefined) {
      notFrontProxy = 'the front-proxy configuration was not read yet';
    } else {
      const socket = req.socket as Partial<TLSSocket>;
      const authorized = socket.authorized === true;
      const outcome = frontProxyIdentity(
        {
          socketAuthorized: authorized,
          peerCommonName: authorized ? peerCommonName(socket) : undefined,
          headers: req.headersDistinct,
        },
        config,
      );
      if ('caller' in outcome) caller = outcome.caller;
      else notFrontProxy = outcome.reason;
    }

    if (caller === undefined) {
      const token = bearerToken(req.headers.authorization);
      if (token === undefined) {
        if (config === undefined)
          return fail(
            res,
            'error',
            unavailable(
              `cannot authenticate requests yet: the ConfigMap ${AUTHENTICATION_CONFIGMAP.namespace}/${AUTHENTICATION_CONFIGMAP.name} has not been read`,
            ),
            { request },
          );
        return fail(res, 'unauthenticated', UNAUTHORIZED, {
          request,
          reason: `${notFrontProxy}, and no bearer token`,
        });
      }
      let result: Authentication;
      try {
        result = await options.reviewToken(token);
      } catch (error) {
        if (error instanceof TokenReviewsThrottled)
          return fail(
            res,
            'throttled',
            {
              code: 429,
              reason: 'TooManyRequests',
              message: `${error.message}; retry later`,
              retryAfterSeconds: error.retryAfterSeconds,
            },
            { request },
          );
        return fail(
          res,
          'error',
          unavailable(
            `cannot authenticate the request: ${describeError(error)}`,
          ),
          { request },
        );
      }
      if (!result.ok)
        return fail(res, 'unauthenticated', UNAUTHORIZED, {
          request,
          reason: result.reason,
        });
      caller = result.caller;
    }
    stripCredentials(req, config);
    caller = withAuthenticatedGroup(caller);

    const attributes = options.attributesOf(req);
    let decision: Decision;
    try {
      decision = await options.authorize(caller, attributes);
    } catch (error) {
      return fail(
        res,
        'error',
        unavailable(`cannot authorize the request: ${describeError(error)}`),
        { request, user: caller.user },
      );
    }
    if (!decision.allowed)
      return fail(
        res,
        'forbidden',
        {
          code: 403,
          reason: 'Forbidden',
          ...forbiddenError(caller.user, attributes, decision.reason),
        },
        { request, user: caller.user, groups: caller.groups },
      );
    res.locals.caller = caller;
    count('authenticated');
    next();
  };
}

interface Failure {
  code: StatusCode;
  reason: string;
  message: string;
  details?: object;
  retryAfterSeconds?: number;
}

// Go's wording: the reason stays in the log, where the operator is, not with the client.
const UNAUTHORIZED: Failure = {
  code: 401,
  reason: 'Unauthorized',
  message: 'Unauthorized',
};

function unavailable(message: string): Failure {
  return { code: 503, reason: 'ServiceUnavailable', message };
}

/** Each connection's peer CN, read once: the aggregator sends every request on a few. */
const peerNames = new WeakMap<Partial<TLSSocket>, string | undefined>();

/**
 * The CN of a verified peer; undefined when a certificate carries several (Node gives an
 * array). Read once per connection: `getPeerCertificate` builds the whole certificate
 * object with three fingerprints on each call, the largest cost of a request's
 * authentication in a profile of `npm run bench -- metrics-adapter`. The connection then
 * refuses renegotiation, as a Go TLS server never renegotiates (crypto/tls
 * `Config.Renegotiation` is for clients only), so the peer read stays the connection's.
 */
function peerCommonName(socket: Partial<TLSSocket>): string | undefined {
  if (peerNames.has(socket)) return peerNames.get(socket);
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  socket.disableRenegotiation?.();
  const cn: unknown = socket.getPeerCertificate().subject?.CN;
  const name = typeof cn === 'string' ? cn : undefined;
  peerNames.set(socket, name);
  return name;
}

/**
 * Drops the credentials once they have been used, as Go's authenticators do, so no
 * handler behind this can read an identity from them (or log a token).
 */
function stripCredentials(
  req: Request,
  config: RequestHeaderConfig | undefined,
): void {
  delete req.headers.authorization;
  if (config === undefined) return;
  for (const name of Object.keys(req.headers))
    if (isFrontProxyHeader(name, config)) delete req.headers[name];
}

/**
 * Every authenticated user is in `system:authenticated`, which the front proxy does not
 * send: Go's authenticator adds it after any method succeeds. Without it the aggregator's own
 * user (`system:aggregator`) is denied discovery and OpenAPI by the default RBAC, which grants
 * those paths to that group.
 */
export function withAuthenticatedGroup(caller: Caller): Caller {
  return caller.groups.includes(AUTHENTICATED_GROUP)
    ? caller
    : { ...caller, groups: [...caller.groups, AUTHENTICATED_GROUP] };
}
