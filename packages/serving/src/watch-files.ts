import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { errorMessage } from './error-message.js';

export type ChangeTrigger = 'watch' | 'poll';

export interface WatchFilesOptions {
  readonly files: readonly string[];
  /** How often to compare the files' fingerprints. */
  readonly pollIntervalMs: number;
  /** Quiet time after the last directory event before `onChange`; default 100 ms. */
  readonly debounceMs?: number;
  /**
   * Called when a file may have changed. It may fire for unrelated files in the same
   * directory, or twice for one change (event and poll): callers compare contents.
   */
  readonly onChange: (trigger: ChangeTrigger) => void;
  readonly logger: Logger;
  /** Default true; false leaves only the poll (tests of the poll use it). */
  readonly useFsWatch?: boolean;
}

export interface FileWatch {
  /** Stops watching and polling. Idempotent. */
  close(): void;
}

/**
 * Watches files that may be replaced in any of the ways a certificate gets rotated:
 *
 * - `fs.watch` on each containing directory catches, within `debounceMs`, both an
 *   in-place write and a Kubernetes Secret volume update (the files are symlinks
 *   through `..data`, which the kubelet swaps with an atomic rename in that directory;
 *   watching the file itself would keep watching the old, unlinked target).
 * - A poll every `pollIntervalMs` compares the device, inode, size, mtime and ctime of
 *   the resolved files, for where `fs.watch` sees nothing or fails (network and some
 *   overlay filesystems, inotify limits, a watched directory that is itself replaced).
 *   The first poll always reports, so a change between the caller's initial read and
 *   the first fingerprint is not lost.
 */
export function watchFiles(options: WatchFilesOptions): FileWatch {
  const debounceMs = options.debounceMs ?? 100;
  const { logger } = options;
  let closed = false;
  let debounce: NodeJS.Timeout | undefined;
  const onEvent = (): void => {
    clearTimeout(debounce);
    debounce = setTimeout(() => {
      if (!closed) options.onChange('watch');
    }, debounceMs);
    debounce.unref();
  };

  const watchers: FSWatcher[] = [];
  if (options.useFsWatch ?? true) {
    const directories = new Set(
      options.files.map((file) => dirname(resolve(file))),
    );
    for (const directory of directories) {
      try {
        const watcher = watch(directory, { persistent: false }, onEvent);
        watcher.on('error', (error) => {
          logger.warn(
            { directory, reason: errorMessage(error) },
            'stopped watching a certificate directory; polling continues',
          );
          watcher.close();
        });
        watchers.push(watcher);
      } catch (error) {
        logger.warn(
          { directory, reason: errorMessage(error) },
          'cannot watch a certificate directory; relying on polling',
        );
      }
    }
  }

  let lastFingerprint: string | undefined;
  let polling = false;
  const poll = setInterval(() => {
    if (polling) return;
    polling = true;
    fingerprint(options.files)
      .then((current) => {
        if (closed || current === lastFingerprint) return;
        lastFingerprint = current;
        options.onChange('poll');
      })
      .catch((error: unknown) =>
        logger.error(
          { reason: errorMessage(error) },
          'certificate poll failed',
        ),
      )
      .finally(() => {
        polling = false;
      });
  }, options.pollIntervalMs);
  poll.unref();

  return {
    close: () => {
      closed = true;
      clearInterval(poll);
      clearTimeout(debounce);
      for (const watcher of watchers) watcher.close();
    },
  };
}

/** Identity and version of each file (symlinks followed); an error code when missing. */
async function fingerprint(files: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    files.map(async (file) => {
      try {
        const s = await stat(file, { bigint: true });
        return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      } catch (error) {
        return `error:${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}`;
      }
    }),
  );
  return parts.join('|');
}
