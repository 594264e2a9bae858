import { requireTimeOrder, type UsageSample } from './usage-csv.js';

/** All samples of one series, column by column (compact and cache-friendly). */
export interface UsageSeries {
  readonly timesMs: number[];
  readonly cpuMillicores: number[];
  readonly memoryBytes: number[];
}

/**
 * Groups samples by series id, keeping first-seen order of the series. With `inTimeOrder`
 * (a replay needs it) a sample older than its series' previous one is an error.
 */
export class UsageSeriesCollector {
  readonly series = new Map<string, UsageSeries>();

  constructor(private readonly inTimeOrder = false) {}

  add(sample: UsageSample, lineNumber: number): void {
    let series = this.series.get(sample.seriesId);
    if (series === undefined) {
      series = { timesMs: [], cpuMillicores: [], memoryBytes: [] };
      this.series.set(sample.seriesId, series);
    }
    if (this.inTimeOrder)
      requireTimeOrder(
        sample.seriesId,
        series.timesMs.at(-1),
        sample.timeMs,
        lineNumber,
      );
    series.timesMs.push(sample.timeMs);
    series.cpuMillicores.push(sample.cpuMillicores);
    series.memoryBytes.push(sample.memoryBytes);
  }
}

/**
 * Indexes of the series' samples in time order (stable for equal times). Recorded
 * traces are usually sorted already, so that case costs one pass and no sort.
 */
export function timeOrder(series: UsageSeries): number[] {
  const order = series.timesMs.map((_, index) => index);
  const sorted = series.timesMs.every(
    (time, i) => i === 0 || (series.timesMs[i - 1] ?? time) <= time,
  );
  if (sorted) return order;
  return order.sort(
    (a, b) => (series.timesMs[a] ?? 0) - (series.timesMs[b] ?? 0) || a - b,
  );
}
