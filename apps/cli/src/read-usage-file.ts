import { forEachLine, type ProgressListener } from './csv-lines.js';
import { checkUsageHeader, parseUsageRow } from './usage-csv.js';
import { UsageSeriesCollector, type UsageSeries } from './usage-series.js';

/**
 * Streams a usage CSV from disk and groups its rows by series. With `inTimeOrder`, a
 * series whose time goes backwards is an error at the line where it does.
 */
export async function readUsageFile(
  path: string,
  onProgress?: ProgressListener,
  { inTimeOrder = false }: { inTimeOrder?: boolean } = {},
): Promise<Map<string, UsageSeries>> {
  const collector = new UsageSeriesCollector(inTimeOrder);
  await forEachLine(
    path,
    (line, lineNumber) => {
      if (lineNumber === 1) return checkUsageHeader(line);
      const sample = parseUsageRow(line, lineNumber);
      if (sample !== undefined) collector.add(sample, lineNumber);
    },
    onProgress,
  );
  return collector.series;
}
