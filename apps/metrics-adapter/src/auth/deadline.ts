/**
 * Rejects when `promise` has not settled within `ms`. The underlying request is not
 * cancelled (`kubeSendJson` takes no signal; its own, longer timeout ends a stalled one),
 * only no longer waited for: a request held up by authentication must fail while its
 * caller still listens.
 */
export function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer in ${ms / 1000}s`)),
      ms,
    );
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
