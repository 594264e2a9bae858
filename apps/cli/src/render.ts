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
 * An aligned table for people, one series a row. Every quantity is the recommendation's own
 * string, which is already in Kubernetes' canonical form (what `kubectl` prints): CPU as
 * DecimalSI (`587m`, `2`), memory as BinarySI (`250Mi`, or plain bytes `628694953` when no
 * binary suffix divides it exactly). Each cell below the header is one whitespace-free token,
 * so `awk '{print $3}'` picks a column as it would from kubectl's output.
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
      recommendation[bound].memory,
    ]),
  ]);
  return formatColumns([header, ...rows]);
}

/** Left-aligns the first column and right-aligns the numbers, two spaces apart. */
function formatColumns(table: readonly string[][]): string {
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
