import type { ProgressListener } from './csv-lines.js';

/**
 * A one-line progress indicator on a terminal's standard error, redrawn in place at most
 * ten times a second. Silent when stderr is not a terminal, so logs and pipes stay clean.
 */
export function terminalProgress(
  label: string,
  stream: NodeJS.WriteStream = process.stderr,
): {
  update: ProgressListener;
  done: () => void;
} {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  let lastDrawMs = 0;
  return {
    update(bytesRead, totalBytes) {
      const now = Date.now();
      if (now - lastDrawMs < 100 && bytesRead < totalBytes) return;
      lastDrawMs = now;
      const percent =
        totalBytes === 0 ? 100 : Math.floor((bytesRead / totalBytes) * 100);
      stream.write(
        `\r${label} ${percent}% (${(bytesRead / 1048576).toFixed(1)} MiB)`,
      );
    },
    done() {
      stream.write('\r\x1b[K');
    },
  };
}
