import type { AdmissionContext } from '@tandem/admission';
import { ColdCacheError } from '@tandem/kube';
import type { Counter } from '@tandem/telemetry';

/**
 * The context with its cache-backed lookups counted when they meet a cold cache: a lookup
 * that needed a cache without its first list waited `--cache-sync-deadline` and rejected
 * with `ColdCacheError`; `admit` then lets the pod in unchanged with a warning (and the
 * review is logged as an error), and `coldCache` counts it by the cache's kind.
 */
export function countingColdCaches(
  context: AdmissionContext,
  coldCache: Counter<'cache'>,
): AdmissionContext {
  const counted =
    <A extends unknown[], R>(lookup: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      lookup(...args).catch((error: unknown) => {
        if (error instanceof ColdCacheError)
          coldCache.inc({ cache: error.kind });
        throw error;
      });
  return {
    ...context,
    vpasInNamespace: counted(context.vpasInNamespace),
    topMostController: counted(context.topMostController),
  };
}
