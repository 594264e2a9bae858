import { awaitFirstLists } from '@tandem/kube';

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
  const coldKind = () => caches.find(({ cache }) => !cache.hasSynced)?.kind;
  return () => awaitFirstLists(coldKind, listed, deadlineMs);
}
