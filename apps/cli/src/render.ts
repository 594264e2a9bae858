import type { ResourceQuantities } from '@tandem/estimators';
import type { SeriesRecommendation } from './recommend.js';

const BOUNDS = ['target', 'lowerBound', 'upperBound'] as const;

/** The JSON document: quantity strings exactly as a VPA status would hold them. */
export function renderJson(
  recommendations: ReadonlyMap<string, SeriesRecommendation>,
): string {
  const document: Record<
    string,
    Record<(typeof BOUNDS)[number], ResourceQuantities>
  > = {};
  for (const [seriesId, recommendation] of recommendations) {
    document[seriesId] = {
      target: recommendation.target,
      lowerBound: recommendation.lowerBound,
      upperBound: recommendation.upperBound,
    };
  }
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * An aligned table for people, one series a row. CPU is the recommendation's own string
 * (`587m`, `2`); memory is shown in binary units to four significant digits (`599.6Mi`
 * for 628694953 bytes, `250Mi` exactly), since a status holds plain bytes whenever no
 * suffix divides them and nobody reads `628694953` at a glance; `--output json` keeps
 * the exact strings. Each cell below the header is one whitespace-free token that is
 * itself a valid quantity, so `awk '{print $3}'` picks a column as it would from kubectl's
 * output and the value pastes into a manifest.
 */
export function renderTable(
  recommendations: ReadonlyMap<string, SeriesRecommendation>,
): string {
  const header = [
    'SERIES',
    'SAMPLES',
    'TARGET CPU',
    'TARGET MEMORY',
    'LOWER CPU',
    'LOWER MEMORY',
    'UPPER CPU',
    'UPPER MEMORY',
  ];
  const rows = [...recommendations].map(([seriesId, recommendation]) => [
    seriesId,
    String(recommendation.samples),
    ...BOUNDS.flatMap((bound) => [
      recommendation[bound].cpu,
      binaryUnits(recommendation[bound].memory),
    ]),
  ]);
  return formatColumns([header, ...rows]);
}

const BINARY_SUFFIXES = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;

/**
 * Bytes (a status' memory string) in the largest binary unit they reach, to four
 * significant digits with trailing zeros dropped: `628694953` → `599.6Mi`, `250Mi` →
 * `250Mi`, `512` → `512`. A string that is not a plain or binary-suffixed count of bytes
 * is shown as it is.
 */
export function binaryUnits(memory: string): string {
  const match = /^([0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(memory);
  if (match === null) return memory;
  const power =
    match[2] === undefined
      ? 0
      : BINARY_SUFFIXES.indexOf(match[2] as (typeof BINARY_SUFFIXES)[number]) +
        1;
  const bytes = Number(match[1]) * 1024 ** power;
  let unit = 0;
  while (unit < BINARY_SUFFIXES.length && bytes >= 1024 ** (unit + 1))
    unit += 1;
  if (unit === 0) return String(bytes);
  const value = Number((bytes / 1024 ** unit).toPrecision(4));
  return `${value}${BINARY_SUFFIXES[unit - 1]}`;
}

/** Left-aligns the first column and right-aligns the numbers, two spaces apart. */
export function formatColumns(table: readonly string[][]): string {
  const widths =
    table[0]?.map((_, column) =>
      Math.max(...table.map((row) => row[column]?.length ?? 0)),
    ) ?? [];
  return table
    .map((row) =>
      row
        .map((cell, column) =>
          column === 0
            ? cell.padEnd(widths[column] ?? 0)
            : cell.padStart(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}
