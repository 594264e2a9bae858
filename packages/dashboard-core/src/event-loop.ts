/**
 * Resolves on the event loop's next turn: long CPU work split by it lets requests in
 * between (a promise alone resolves before any I/O is looked at).
 */
export const yieldToEventLoop = (): Promise<void> =>
  new Promise<void>((resolve) => setImmediate(resolve));
