/** One measured figure and the target it must meet. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  target: { comparison: '>=' | '<='; value: number } | undefined;
  /**
   * For a median of several runs: the lowest and highest run and how many there were,
   * so a reader sees how far one run can be from the figure.
   */
  spread?: Spread;
}

export interface Spread {
  low: number;
  high: number;
  runs: number;
}

/** A median with the spread of the runs it came from. */
export interface Measured {
  value: number;
  spread: Spread;
}

/** The median of the runs (the upper one of an even count) with their spread. */
export function medianWithSpread(runs: readonly number[]): Measured {
  const sorted = [...runs].sort((a, b) => a - b);
  return {
    value: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
    spread: {
      low: sorted[0] ?? Number.NaN,
      high: sorted.at(-1) ?? Number.NaN,
      runs: sorted.length,
    },
  };
}

export function meetsTarget(figure: Figure): boolean {
  if (figure.target === undefined) return true;
  return figure.target.comparison === '>='
    ? figure.value >= figure.target.value
    : figure.value <= figure.target.value;
}

/** A plain aligned table: easy to read in a terminal and to paste into docs/benchmarks.md. */
export function formatFigures(figures: readonly Figure[]): string {
  const rows = figures.map((figure) => [
    figure.name,
    `${formatNumber(figure.value)} ${figure.unit}${formatSpread(figure.spread)}`,
    figure.target === undefined
      ? ''
      : `${figure.target.comparison} ${formatNumber(figure.target.value)} ${figure.unit}`,
    figure.target === undefined ? '' : meetsTarget(figure) ? 'ok' : 'MISSED',
  ]);
  const table = [['figure', 'measured', 'target', ''], ...rows];
  const widths = [0, 1, 2, 3].map((column) =>
    Math.max(...table.map((row) => row[column]?.length ?? 0)),
  );
  return table
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function formatSpread(spread: Spread | undefined): string {
  if (spread === undefined || spread.runs < 2) return '';
  return ` (${formatNumber(spread.low)}–${formatNumber(spread.high)}, ${spread.runs} runs)`;
}

function formatNumber(value: number): string {
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toPrecision(3);
}

/**
 * How loaded the machine was (one-minute load averages at the start and the end of the
 * run), and a warning when either was above half its cores: a latency or throughput
 * measured then may be contention rather than the code.
 */
export function machineLoad(
  startLoad: number,
  endLoad: number,
  cores: number,
): { summary: string; warning?: string } {
  const summary = `load average ${startLoad.toFixed(2)} at start, ${endLoad.toFixed(2)} at end`;
  const busy = cores / 2;
  return Math.max(startLoad, endLoad) > busy
    ? {
        summary,
        warning: `The machine was busy (load average above ${busy}, half its ${cores} cores): these figures may hold contention; measure again on a quiet machine before comparing them.`,
      }
    : { summary };
}

/** The figure in other units (`ms` → `s`, a time → a rate): the spread follows, in order. */
export function mapMeasured(
  measured: Measured,
  transform: (value: number) => number,
): Measured {
  const [a, b] = [
    transform(measured.spread.low),
    transform(measured.spread.high),
  ];
  return {
    value: transform(measured.value),
    spread: {
      low: Math.min(a, b),
      high: Math.max(a, b),
      runs: measured.spread.runs,
    },
  };
}
