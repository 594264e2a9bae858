/**
 * The HTTP status code of a failed request: client-node's ApiException has `code`,
 * its Watch reports `statusCode`, a Kubernetes Status object has `code`. Other errors
 * carry numeric codes too (a timeout's DOMException has `code` 23), so only values in
 * the HTTP status range count.
 */
export function httpStatusOf(error: unknown): number | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { code, statusCode } = error as {
    code?: unknown;
    statusCode?: unknown;
  };
  return [code, statusCode].find(isHttpStatus);
}

function isHttpStatus(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= 100 &&
    value <= 599
  );
}

/** True for `410 Gone`: the requested resourceVersion is too old, a relist is needed. */
export function isGone(error: unknown): boolean {
  return httpStatusOf(error) === 410;
}

/**
 * A short, single-line description of an error for logs. For a failed API call that is
 * the API server's own Status message (e.g. an admission webhook's or a policy's reason),
 * which client-node keeps only in the exception's `body`, raw or parsed.
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const status = httpStatusOf(error);
    if (status === undefined) return error.message.split('\n')[0] ?? '';
    const apiStatus = apiStatusOf((error as { body?: unknown }).body);
    const detail = apiStatus?.message ?? error.message.split('\n')[0] ?? '';
    return `HTTP ${status}${apiStatus?.reason ? ` ${apiStatus.reason}` : ''}: ${detail.replaceAll('\n', ' ')}`;
  }
  return String(error);
}

/**
 * The `reason`, `message` and `details.causes[].type`s of a Kubernetes Status body (raw or
 * parsed), when it is one.
 */
export function apiStatusOf(
  body: unknown,
): { reason?: string; message?: string; causeTypes?: string[] } | undefined {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const { kind, reason, message, details } = parsed as Record<string, unknown>;
  if (kind !== 'Status' || typeof message !== 'string') return undefined;
  const causes = (details as { causes?: unknown } | undefined)?.causes;
  const causeTypes = Array.isArray(causes)
    ? causes.flatMap((cause) => {
        const type = (cause as { type?: unknown } | null)?.type;
        return typeof type === 'string' ? [type] : [];
      })
    : [];
  return {
    message,
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(causeTypes.length > 0 ? { causeTypes } : {}),
  };
}

/** Whether a failed API call's Status lists a cause of this type (e.g. `NodeCapacity`). */
export function hasStatusCause(error: unknown, type: string): boolean {
  const body = (error as { body?: unknown } | null)?.body;
  return apiStatusOf(body)?.causeTypes?.includes(type) ?? false;
}
