/**
 * Upstream's `--update-worker-count` workers over one queue: up to `workers` calls of
 * `work` run at once, each taking the next item in order; `keepTaking(worker)` is asked
 * before a worker takes another item (a step deadline), so an item, once taken, is always
 * finished. Resolves with how many items were taken.
 */
export async function drainQueue<T>(
  items: readonly T[],
  workers: number,
  work: (item: T) => Promise<void>,
  keepTaking: (itemsDoneByThisWorker: number) => boolean = () => true,
): Promise<number> {
  let next = 0;
  const worker = async () => {
    for (let done = 0; next < items.length && keepTaking(done); done += 1) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(
    Array.from(
      { length: Math.max(1, Math.min(workers, items.length)) },
      worker,
    ),
  );
  return next;
}
