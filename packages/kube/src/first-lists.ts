/** A lookup needed a kind's cache, which had not completed its first list in time. */
export class ColdCacheError extends Error {
  override readonly name = 'ColdCacheError';
  constructor(
    /** The cached kind: a well-known controller, or an app's own (`VerticalPodAutoscaler`). */
    readonly kind: string,
    timeoutMs: number,
  ) {
    super(
      `the ${kind} cache has not completed its first list within ${timeoutMs / 1000}s`,
    );
  }
}

/**
 * Waits for caches' first lists at most `deadlineMs`: at once when `coldKind()` finds none
 * cold (the steady state costs no timer), otherwise until `firstLists` settles or the
 * deadline passes, then `ColdCacheError` naming the kind still cold. A failed start counts
 * as not listed. One mechanism for a target cache's lookup and a webhook review.
 */
export async function awaitFirstLists(
  coldKind: () => string | undefined,
  firstLists: Promise<unknown>,
  deadlineMs: number,
): Promise<void> {
  if (coldKind() === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
  });
  try {
    await Promise.race([firstLists.catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
  }
  const cold = coldKind();
  if (cold !== undefined) throw new ColdCacheError(cold, deadlineMs);
}
