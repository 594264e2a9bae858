import { readFile } from 'node:fs/promises';
import { backoffDelayMs } from '@tandem/kube';
import type { Logger } from 'pino';
import { errorMessage } from './error-message.js';
import { watchFiles, type FileWatch } from './watch-files.js';

export interface FollowedFile {
  /**
   * Reads the file and hands its content to `task` (a registration that embeds it), in
   * turn with `onChange`: a change landing while `task` runs is applied after it, against
   * what `task` applied, never overwritten by it. Resolves with `task`'s result; a
   * rejection leaves nothing applied, and the caller retries.
   */
  apply<T>(task: (content: string) => Promise<T>): Promise<T>;
  close(): void;
}

/**
 * Follows a file the server does not itself load, such as the CA bundle the API server is
 * told to trust (a webhook's or an APIService's caBundle), and hands each new content to
 * `onChange`, as upstream patches its webhook's caBundle when the CA rotates. Changes
 * count from the first successful `apply` and are compared with the content applied last.
 *
 * Every read and application runs one at a time, each with the content read just before
 * it: a registration that read the bundle, then a CA staged while it was in flight, then
 * a patch that found the old registration already current would leave the API server
 * trusting a bundle without the CA that signs next, so a read never outlives its turn.
 */
export function followFileContent({
  file,
  logger,
  onChange,
}: {
  file: string;
  logger: Logger;
  /** Applies the new content; a rejection is logged and retried with backoff. */
  onChange: (content: string) => Promise<void>;
}): FollowedFile {
  let applied: string | undefined;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(step: () => Promise<T>): Promise<T> => {
    const run = queue.then(step);
    queue = run.catch(() => undefined);
    return run;
  };
  const check = () =>
    void inTurn(async () => {
      if (applied === undefined) return;
      let content: string;
      try {
        content = await readFile(file, 'utf8');
      } catch (error) {
        logger.warn({ file }, `cannot read ${file}: ${errorMessage(error)}`);
        return;
      }
      if (content === applied || content.trim() === '') return;
      try {
        await onChange(content);
        applied = content;
        failures = 0;
      } catch (error) {
        // Left unapplied: tried again after a backoff, or sooner on the next change.
        failures += 1;
        logger.warn(
          { file },
          `applying the new content of ${file} failed: ${errorMessage(error)}`,
        );
        clearTimeout(retry);
        retry = setTimeout(check, backoffDelayMs(failures, Math.random()));
        retry.unref();
      }
    });
  const watch: FileWatch = watchFiles({
    files: [file],
    pollIntervalMs: 1000,
    onChange: check,
    logger,
  });
  return {
    apply: (task) =>
      inTurn(async () => {
        const content = await readFile(file, 'utf8');
        const result = await task(content);
        applied = content;
        return result;
      }),
    close: () => {
      watch.close();
      clearTimeout(retry);
    },
  };
}
