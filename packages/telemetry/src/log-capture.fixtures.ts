import type { DestinationStream } from 'pino';

/** A pino destination that keeps what is logged, and the lines parsed as JSON. */
export function capture(): {
  destination: DestinationStream;
  lines: () => Record<string, unknown>[];
} {
  const chunks: string[] = [];
  return {
    destination: { write: (chunk: string) => void chunks.push(chunk) },
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
