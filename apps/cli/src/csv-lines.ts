import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { UsageCsvError } from './usage-csv.js';

export type ProgressListener = (bytesRead: number, totalBytes: number) => void;

/**
 * Streams a text file line by line, numbering lines from 1, and reports progress now and
 * then. A UsageCsvError thrown by `onLine` leaves with this file's path on it.
 */
export async function forEachLine(
  path: string,
  onLine: (line: string, lineNumber: number) => void,
  onProgress?: ProgressListener,
): Promise<void> {
  const { size } = await stat(path);
  const stream = createReadStream(path, {
    encoding: 'utf8',
    highWaterMark: 1 << 20,
  });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const withPath = (line: string, lineNumber: number) => {
    try {
      onLine(line, lineNumber);
    } catch (error) {
      if (error instanceof UsageCsvError) error.path = path;
      throw error;
    }
  };
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    withPath(line, lineNumber);
    // Report once per chunk-sized step rather than per line: cheap and smooth enough.
    if (onProgress !== undefined && (lineNumber & 0x3fff) === 0)
      onProgress(stream.bytesRead, size);
  }
  // An empty file has one line, empty: its header is what is wrong with it.
  if (lineNumber === 0) withPath('', 1);
  onProgress?.(size, size);
}
