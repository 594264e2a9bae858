import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Waited after the last list before collecting: the caches of an app list together. */
export const MEMORY_RELEASE_DELAY_MS = 1_000;

/**
 * V8's "last resort" collection: every collectable object, then the emptied pages handed
 * back to the system. The gc() function of a new context, exposed by `--expose-gc` set at
 * run time, is the only way Node offers to ask for it; nothing else of that flag changes
 * (the app's own context never sees a `gc`).
 */
export function lastResortCollection(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: {
    type: 'major';
    execution: 'sync';
    flavor: 'last-resort';
  }) => void;
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/**
 * Gives back to the system the heap a large list grew, once the lists settle: the
 * returned function is called after each completed list, and the collection runs
 * `delayMs` after the last call. A list of 50,000 pods passes about 900 MB of JSON through
 * the heap; V8 grows the heap to keep up and keeps it, and with no allocation at rest its
 * memory reducer never runs (`--trace-memory-reducer` says "high alloc" for as long as
 * the process idles), so the adapter held 610 MiB for 110 MiB of live objects (ADR 0024).
 * The collection stops the event loop for a while (about 0.6 s at that size), once per
 * burst of lists: at start and after a relist, not per watch event.
 */
export function releaseMemoryAfterLists({
  collect = lastResortCollection(),
  delayMs = MEMORY_RELEASE_DELAY_MS,
}: { collect?: () => void; delayMs?: number } = {}): () => void {
  let timer: NodeJS.Timeout | undefined;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(collect, delayMs);
    // A pending collection never keeps a stopping process alive.
    timer.unref();
  };
}
