/**
 * The API server refuses an object whose annotations (keys plus values, in bytes) exceed
 * 256 KiB (`TotalAnnotationSizeLimitB`). A pod near that limit must not be pushed over it
 * by the webhook's annotations, or its creation would fail.
 */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** The annotations' total size after `added` are set over `existing`. */
export function annotationSizeAfter(
  existing: Readonly<Record<string, string>> | undefined,
  added: ReadonlyArray<readonly [string, string]>,
): number {
  const merged = new Map(Object.entries(existing ?? {}));
  for (const [key, value] of added) merged.set(key, value);
  let size = 0;
  for (const [key, value] of merged) {
    size += Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8');
  }
  return size;
}
