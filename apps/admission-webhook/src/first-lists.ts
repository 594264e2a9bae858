import { ColdCacheError } from '@tandem/kube';

/** A cache a review reads, by the kind a cold-cache warning names. */
export interface ReviewedCache {
  kind: string;
  cache: { readonly hasSynced: boolean };
}

/**
 * A wait a review makes before it reads `caches`: nothing once every one has its first
 * list (the steady state costs no promise and no timer); before that, at most `deadlineMs`
 * for `listed` (the caches' start), then `ColdCacheError` naming the first cold one. A
 * review that read an unlisted VPA cache would find no VPA and let the pod in silently
 * unsized, and one that read an unlisted LimitRange cache could size it past a maximum
 * the API server then refuses: a cold cache must be said, not read.
 */
export function firstListsWithin(
  caches: readonly ReviewedCache[],
  listed: Promise<void>,
  deadlineMs: number,
): () => Promise<void> {
  const coldOne = () => caches.find(({ cache }) => !cache.hasSynced);
  return async () => {
    if (coldOne() === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs);
    });
    try {
      await Promise.race([listed.catch(() => undefined), deadline]);
    } finally {
      clearTimeout(timer);
    }
    const cold = coldOne();
    if (cold !== undefined) throw new ColdCacheError(cold.kind, deadlineMs);
  };
}
