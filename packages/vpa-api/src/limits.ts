import type { Quantity } from './quantity.js';
import { scaleProportionally } from './scaling.js';

/** A container's resource as it stands before the VPA touches it. */
export interface OriginalResource {
  request?: Quantity;
  limit?: Quantity;
  /** The `default` of the namespace's LimitRange, which the API server applies when the limit is unset. */
  defaultLimit?: Quantity;
}

export interface ProportionalLimit {
  /** The limit to set; absent when the container should keep having no limit. */
  limit?: Quantity;
  /** Upstream's explanation when no limit is set, or when the limit had to be capped. */
  annotation?: string;
}

/**
 * The limit that keeps the container's original limit-to-request ratio at the recommended
 * request (upstream `GetProportionalLimit`, per resource):
 * - no original limit (nor LimitRange default) → no limit;
 * - no recommended request → no limit;
 * - no original request, or request equal to limit → limit = recommended request (Kubernetes
 *   treats a missing request as equal to the limit);
 * - otherwise `originalLimit × recommended / originalRequest`, rounded down (CPU in
 *   millicores, memory in bytes), capped to MaxInt64 on overflow.
 */
export function proportionalLimit(
  resource: string,
  original: OriginalResource,
  recommendedRequest: Quantity | undefined,
): ProportionalLimit {
  const originalLimit = effectiveLimit(original);
  if (originalLimit === undefined) {
    return {
      annotation: `${resource}: limit NOT set since originalLimit is nil or 0`,
    };
  }
  if (recommendedRequest === undefined || recommendedRequest.isZero()) {
    return {
      annotation: `${resource}: limit NOT set since recommendedRequest is nil or 0`,
    };
  }
  const { request } = original;
  if (
    request === undefined ||
    request.isZero() ||
    request.milliValue() === originalLimit.milliValue()
  ) {
    return { limit: recommendedRequest };
  }
  const scaled = scaleProportionally(
    resource,
    originalLimit,
    request,
    recommendedRequest,
  );
  if (!scaled.cappedToInt64) return { limit: scaled.quantity };
  return {
    limit: scaled.quantity,
    annotation: `${resource}: failed to keep limit to request ratio; capping limit to int64`,
  };
}

/**
 * The request at which the container's limit would sit exactly on `limitBound` (a LimitRange
 * min or max) if the original limit-to-request ratio is kept; undefined when nothing bounds
 * the request (no limit, or no bound). Rounded down, CPU in millicores, memory in bytes.
 */
export function boundaryRequest(
  resource: string,
  original: OriginalResource,
  limitBound: Quantity | undefined,
): Quantity | undefined {
  const originalLimit = effectiveLimit(original);
  if (originalLimit === undefined) return undefined;
  const { request } = original;
  if (request === undefined || request.isZero()) return limitBound;
  if (limitBound === undefined) return undefined;
  return scaleProportionally(resource, request, originalLimit, limitBound)
    .quantity;
}

/** The container's limit, else the LimitRange default; a zero counts as unset. */
function effectiveLimit({
  limit,
  defaultLimit,
}: OriginalResource): Quantity | undefined {
  const chosen = limit !== undefined && !limit.isZero() ? limit : defaultLimit;
  return chosen !== undefined && !chosen.isZero() ? chosen : undefined;
}
