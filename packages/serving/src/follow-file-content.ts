import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { watchFiles, type FileWatch } from './watch-files.js';

/**
 * Follows a file the server does not itself load, such as the CA bundle the API server is
 * told to trust (a webhook's or an APIService's caBundle), and hands each new content to
 * `onChange`, as upstream patches its webhook's caBundle when the CA rotates. Changes are
 * compared with the content `current()` last returned or `onChange` last applied.
 */
export function followFileContent({
  file,
  logger,
  onChange,
}: {
  file: string;
  logger: Logger;
  /** Applies the new content; a rejection is logged and retried on the next change. */
  onChange: (content: string) => Promise<void>;
}): { current(): Promise<string>; close(): void } {
  let applied: string | undefined;
  let running = Promise.resolve();
  const read = () => readFile(file, 'utf8');
  const check = () => {
    running = running.then(async () => {
      let content: string;
      try {
        content = await read();
      } catch (error) {
        logger.warn(
          { file },
          `cannot read ${file}: ${(error as Error).message}`,
        );
        return;
      }
      if (applied === undefined || content === applied || content.trim() === '')
        return;
      try {
        await onChange(content);
        applied = content;
      } catch (error) {
        // Left unapplied: the next change or poll tries again.
        logger.warn(
          { file },
          `applying the new content of ${file} failed: ${(error as Error).message}`,
        );
      }
    });
  };
  const watch: FileWatch = watchFiles({
    files: [file],
    pollIntervalMs: 1000,
    onChange: check,
    logger,
  });
  return {
    /** The content now, which the caller applies; later changes are compared with it. */
    async current() {
      applied = await read();
      return applied;
    },
    close: () => watch.close(),
  };
}
