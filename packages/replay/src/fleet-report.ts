import type { ParameterValue } from '@tandem/strategies';
import type { ApplyMode } from './apply-rule.js';
import type { SeriesScore } from './series-score.js';

export interface FleetTotals {
  readonly cpuSlackCoreHours: number;
  readonly memorySlackGiBHours: number;
  readonly cpuShortfallCoreHours: number;
  readonly oomEvents: number;
  readonly requestChanges: number;
}

/** Per-series figures whose spread across the fleet the report gives. */
export interface SeriesFigures {
  readonly cpuSlack: number;
  readonly memorySlack: number;
  readonly oomEventsPerDay: number;
  readonly requestChangesPerDay: number;
}

/** One strategy over a fleet: totals, Autopilot's relative slack, spread across series. */
export interface StrategyReport {
  readonly name: string;
  readonly parameters: Readonly<Record<string, ParameterValue>>;
  readonly apply: ApplyMode;
  /** Series scored. */
  readonly series: number;
  /** Series too short to score (under two days). */
  readonly unscored: readonly string[];
  readonly totals: FleetTotals;
  /** Slack over request, and CPU shortfall over usage, each summed over the fleet. */
  readonly relative: {
    readonly cpuSlack: number;
    readonly memorySlack: number;
    readonly cpuShortfall: number;
  };
  readonly median: SeriesFigures;
  readonly p95: SeriesFigures;
  readonly perSeries: readonly SeriesScore[];
}

/** Sums and spreads the series' scores into one report. */
export function fleetReport(
  identity: Pick<StrategyReport, 'name' | 'parameters' | 'apply'>,
  scores: readonly SeriesScore[],
  unscored: readonly string[],
): StrategyReport {
  const sum = (pick: (score: SeriesScore) => number) =>
    scores.reduce((total, score) => total + pick(score), 0);
  const figures = scores.map(seriesFigures);
  const spread = (quantile: number): SeriesFigures => {
    const at = (pick: (figure: SeriesFigures) => number) =>
      nearestRank(figures.map(pick), quantile);
    return {
      cpuSlack: at((f) => f.cpuSlack),
      memorySlack: at((f) => f.memorySlack),
      oomEventsPerDay: at((f) => f.oomEventsPerDay),
      requestChangesPerDay: at((f) => f.requestChangesPerDay),
    };
  };
  return {
    ...identity,
    series: scores.length,
    unscored,
    totals: {
      cpuSlackCoreHours: sum((s) => s.cpuSlackCoreHours),
      memorySlackGiBHours: sum((s) => s.memorySlackGiBHours),
      cpuShortfallCoreHours: sum((s) => s.cpuShortfallCoreHours),
      oomEvents: sum((s) => s.oomEvents),
      requestChanges: sum((s) => s.requestChanges),
    },
    relative: {
      cpuSlack: ratio(
        sum((s) => s.cpuSlackCoreHours),
        sum((s) => s.cpuRequestCoreHours),
      ),
      memorySlack: ratio(
        sum((s) => s.memorySlackGiBHours),
        sum((s) => s.memoryRequestGiBHours),
      ),
      cpuShortfall: ratio(
        sum((s) => s.cpuShortfallCoreHours),
        sum((s) => s.cpuUsageCoreHours),
      ),
    },
    median: spread(0.5),
    p95: spread(0.95),
    perSeries: scores,
  };
}

function seriesFigures(score: SeriesScore): SeriesFigures {
  const days = score.scoredHours / 24;
  return {
    cpuSlack: ratio(score.cpuSlackCoreHours, score.cpuRequestCoreHours),
    memorySlack: ratio(score.memorySlackGiBHours, score.memoryRequestGiBHours),
    oomEventsPerDay: ratio(score.oomEvents, days),
    requestChangesPerDay: ratio(score.requestChanges, days),
  };
}

function ratio(part: number, whole: number): number {
  return whole > 0 ? part / whole : 0;
}

/** The nearest-rank quantile (0 for no values). */
export function nearestRank(
  values: readonly number[],
  quantile: number,
): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(Math.ceil(quantile * sorted.length), 1);
  return sorted[rank - 1] ?? 0;
}
