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

/** A short, single-line description of an error for logs. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const status = httpStatusOf(error);
    const first = error.message.split('\n')[0] ?? '';
    return status === undefined ? first : `HTTP ${status}: ${first}`;
  }
  return String(error);
}
