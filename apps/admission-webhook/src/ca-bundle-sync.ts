import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { watchFiles, type FileWatch } from '@tandem/serving';

/**
 * Follows `--client-ca-file` (the CA the API server is told to trust) and hands each new
 * content to `onNewCa`, as upstream patches its webhook's caBundle when the CA rotates. The
 * serving key pair is reloaded by the HTTPS server itself; this only watches the bundle.
 */
export function followCaBundle({
  caFile,
  logger,
  onNewCa,
}: {
  caFile: string;
  logger: Logger;
  /** Patches the registration; a rejection is logged and retried on the next change. */
  onNewCa: (caPem: string) => Promise<void>;
}): { current(): Promise<string>; close(): void } {
  let applied: string | undefined;
  let running = Promise.resolve();
  const read = () => readFile(caFile, 'utf8');
  const check = () => {
    running = running.then(async () => {
      let caPem: string;
      try {
        caPem = await read();
      } catch (error) {
        logger.warn(
          { caFile },
          `cannot read the CA bundle: ${(error as Error).message}`,
        );
        return;
      }
      if (applied === undefined || caPem === applied || caPem.trim() === '')
        return;
      logger.info('New client CA found, reloading and patching webhook');
      try {
        await onNewCa(caPem);
        applied = caPem;
      } catch (error) {
        // Left unapplied: the next change or poll tries again.
        logger.warn(
          `patching the caBundle failed: ${(error as Error).message}`,
        );
      }
    });
  };
  const watch: FileWatch = watchFiles({
    files: [caFile],
    pollIntervalMs: 1000,
    onChange: check,
    logger,
  });
  return {
    /** The bundle now, which the caller registers; later changes are compared with it. */
    async current() {
      applied = await read();
      return applied;
    },
    close: () => watch.close(),
  };
}
