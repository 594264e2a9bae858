import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { checkUsageHeader, parseUsageRow } from './usage-csv.js';
import { UsageSeriesCollector, type UsageSeries } from './usage-series.js';

export type ProgressListener = (bytesRead: number, totalBytes: number) => void;

/** Streams a usage CSV from disk and groups its rows by series. */
export async function readUsageFile(
  path: string,
  onProgress?: ProgressListener,
): Promise<Map<string, UsageSeries>> {
  const { size } = await stat(path);
  const stream = createReadStream(path, {
    encoding: 'utf8',
    highWaterMark: 1 << 20,
  });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const collector = new UsageSeriesCollector();
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    if (lineNumber === 1) {
      checkUsageHeader(line);
      continue;
    }
    const sample = parseUsageRow(line, lineNumber);
    if (sample !== undefined) collector.add(sample);
    // Report once per chunk-sized step rather than per line: cheap and smooth enough.
    if (onProgress !== undefined && (lineNumber & 0x3fff) === 0)
      onProgress(stream.bytesRead, size);
  }
  if (lineNumber === 0) checkUsageHeader('');
  onProgress?.(size, size);
  return collector.series;
}
