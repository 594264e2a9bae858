const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/** The spans a workload page offers, shortest first. */
export const HISTORY_RANGES: readonly { name: string; ms: number }[] = [
  { name: '1h', ms: HOUR_MS },
  { name: '6h', ms: 6 * HOUR_MS },
  { name: '24h', ms: DAY_MS },
  { name: '7d', ms: 7 * DAY_MS },
  { name: '30d', ms: 30 * DAY_MS },
];

/** About as many points as a plot is wide: more would only cost the query and the page. */
const MAX_POINTS = 600;

export interface HistoryRange {
  readonly name: string;
  readonly ms: number;
}

export interface HistoryView {
  /** What the page shows. */
  readonly range: HistoryRange;
  /** What it may show: up to the in-memory history, or past it with Prometheus. */
  readonly offered: readonly HistoryRange[];
}

/**
 * The range a page asked for (`?range=`), among those the dashboard can draw: without
 * Prometheus, none longer than the first that covers the in-memory history. A missing or
 * unknown name is the longest memory alone can draw, so a plain link shows all of it.
 */
export function historyView(
  asked: unknown,
  memoryMs: number,
  withPrometheus: boolean,
): HistoryView {
  const covering =
    HISTORY_RANGES.findIndex(({ ms }) => ms >= memoryMs) + 1 ||
    HISTORY_RANGES.length;
  const offered = withPrometheus
    ? HISTORY_RANGES
    : HISTORY_RANGES.slice(0, covering);
  const fallback = HISTORY_RANGES[covering - 1] as HistoryRange;
  const range = offered.find(({ name }) => name === asked) ?? fallback;
  return { range, offered };
}

/** The step of a range query over `rangeMs`: whole seconds, at least `minStepMs`. */
export function historyStepMs(rangeMs: number, minStepMs: number): number {
  return Math.max(minStepMs, Math.ceil(rangeMs / MAX_POINTS / 1000) * 1000);
}
