/** The HTTP codes the adapter answers errors with; `code` in the Status equals the HTTP status. */
export type StatusCode = 400 | 401 | 403 | 404 | 429 | 500 | 503 | 504;

/**
 * A `metav1.Status` failure (reference §1.6). The HPA shows `message` in its conditions and
 * events, so callers should make it say what to fix. `reason` is the Kubernetes reason:
 * `BadRequest`, `Unauthorized`, `Forbidden`, `NotFound`, `TooManyRequests`, `InternalError`,
 * `ServiceUnavailable`, `Timeout`.
 */
export function status(
  code: StatusCode,
  reason: string,
  message: string,
  details?: object,
): object {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details === undefined ? {} : { details }),
    code,
  };
}

/**
 * custom-metrics-apiserver's wording for an unknown metric, kept word for word because
 * users search for it: `the server could not find the metric <metric> for <groupresource>`,
 * then ` <name>` for a named object, then ` with selector <selector>`.
 */
export function metricNotFoundMessage(
  metric: string,
  groupResource: string,
  name?: string,
  selector?: string,
): string {
  let message = `the server could not find the metric ${metric} for ${groupResource}`;
  if (name !== undefined && name !== '') message += ` ${name}`;
  if (selector !== undefined && selector !== '') {
    message += ` with selector ${selector}`;
  }
  return message;
}
