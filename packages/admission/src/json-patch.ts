import jsonPatch from 'fast-json-patch';
import { describeError } from './text.js';

/** The only JSON Patch operation the webhook emits: upstream patches pods and VPAs with `add`. */
export interface AddOperation {
  op: 'add';
  path: string;
  value: unknown;
}

/** A JSON Pointer from raw segments, escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`). */
export function jsonPointer(
  ...segments: ReadonlyArray<string | number>
): string {
  return segments
    .map(
      (segment) =>
        `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`,
    )
    .join('');
}

/** The `patch` field of an AdmissionResponse: the operations as JSON, base64-encoded. */
export function encodePatch(operations: readonly AddOperation[]): string {
  return Buffer.from(JSON.stringify(operations), 'utf8').toString('base64');
}

/**
 * Why `operations` would not apply to `document`, or undefined when they apply cleanly.
 * The API server fails the whole request when a webhook's patch does not apply, so every
 * patch is tried on a copy of the submitted object first; `document` itself is not changed.
 */
export function patchProblem(
  document: object,
  operations: readonly AddOperation[],
): string | undefined {
  try {
    const error = jsonPatch.validate(operations, document);
    if (error === undefined) return undefined;
    // The library's message embeds the whole document; its first line says what failed.
    const [reason] = error.message.split('\n');
    return `${error.name} at operation ${error.index ?? '?'} (${error.operation?.path ?? '?'}): ${reason}`;
  } catch (error) {
    // fast-json-patch throws a plain TypeError for `__proto__` paths instead of returning it.
    return describeError(error);
  }
}
