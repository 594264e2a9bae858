import type { DeclaredSizes } from '@tandem/replay';
import { parseCpuMillicores, parseMemoryBytes } from '@tandem/vpa-api';
import { forEachLine } from './csv-lines.js';
import {
  parseRowKey,
  parseUsageAmount,
  requireTimeOrder,
  stripLineEnd,
  UsageCsvError,
} from './usage-csv.js';

/**
 * The columns a capacity file may name for each field: the usage file's own, or the
 * Bitbrains trace's `capacity.csv` (whose other columns are ignored).
 */
const COLUMN_NAMES = {
  time: ['timestamp_s'],
  series: ['series_id'],
  cpu: ['cpu_cores', 'cpu_cores_provisioned'],
  memory: ['memory_bytes', 'memory_capacity_bytes'],
} as const;

type Field = keyof typeof COLUMN_NAMES;

/**
 * Reads the sizes each series declared, as change points (`timestamp_s,series_id,
 * cpu_cores,memory_bytes`, one row at the start of each series and one per change). The
 * declared size is what the pod template asks for, both request and limit.
 */
export async function readCapacityFile(
  path: string,
): Promise<Map<string, DeclaredSizes>> {
  const declared = new Map<
    string,
    { timesMs: number[]; sizes: { cpu: number; memory: number }[] }
  >();
  let columns: Record<Field, number> | undefined;
  let header: string[] = [];
  await forEachLine(path, (line, lineNumber) => {
    const text = stripLineEnd(line);
    if (lineNumber === 1) {
      header = text.replace(/^\uFEFF/, '').split(',');
      columns = headerColumns(header);
      return;
    }
    if (text.trim() === '' || columns === undefined) return;
    const fields = text.split(',');
    if (fields.length !== header.length)
      throw new UsageCsvError(
        lineNumber,
        `expected ${header.length} comma-separated fields, found ${fields.length}`,
      );
    const { seriesId, timeMs } = parseRowKey(
      fields[columns.time] ?? '',
      fields[columns.series] ?? '',
      lineNumber,
    );
    let series = declared.get(seriesId);
    if (series === undefined) {
      series = { timesMs: [], sizes: [] };
      declared.set(seriesId, series);
    }
    requireTimeOrder(seriesId, series.timesMs.at(-1), timeMs, lineNumber);
    series.timesMs.push(timeMs);
    series.sizes.push({
      cpu: parseUsageAmount(
        fields[columns.cpu] ?? '',
        header[columns.cpu] ?? 'cpu',
        parseCpuMillicores,
        lineNumber,
      ),
      memory: parseUsageAmount(
        fields[columns.memory] ?? '',
        header[columns.memory] ?? 'memory',
        parseMemoryBytes,
        lineNumber,
      ),
    });
  });
  return declared;
}

function headerColumns(header: readonly string[]): Record<Field, number> {
  const columns = {} as Record<Field, number>;
  for (const [field, names] of Object.entries(COLUMN_NAMES) as [
    Field,
    readonly string[],
  ][]) {
    const index = header.findIndex((column) => names.includes(column));
    if (index < 0)
      throw new UsageCsvError(
        1,
        `the header has no ${names.map((name) => `'${name}'`).join(' or ')} column (expected 'timestamp_s,series_id,cpu_cores,memory_bytes')`,
      );
    columns[field] = index;
  }
  return columns;
}
