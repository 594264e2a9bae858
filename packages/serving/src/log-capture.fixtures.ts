import { pino, type Logger } from 'pino';

/** A debug-level pino logger that keeps its lines, parsed, for assertions. */
export function capturingLogger(): {
  logger: Logger;
  lines: () => Record<string, unknown>[];
} {
  const chunks: string[] = [];
  const logger = pino(
    { level: 'debug', formatters: { level: (label) => ({ level: label }) } },
    { write: (chunk: string) => void chunks.push(chunk) },
  );
  return {
    logger,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
