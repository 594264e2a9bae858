import type { Strategy } from '@tandem/strategies';
import type { ApplyMode } from './apply-rule.js';
import type { DeclaredSizes } from './declared-sizes.js';
import { fleetReport, type StrategyReport } from './fleet-report.js';
import { replaySeries, type SeriesSamples } from './replay-series.js';
import type { SeriesScore } from './series-score.js';

export interface Fleet {
  readonly series: ReadonlyMap<string, SeriesSamples>;
  /** Declared sizes by series id, when a capacity file was given. */
  readonly declared?: ReadonlyMap<string, DeclaredSizes>;
}

/** Replays every series of the fleet through `strategy`, in the fleet's series order. */
export function replayFleet(
  fleet: Fleet,
  strategy: Strategy,
  mode: ApplyMode,
  onSeriesDone?: (samples: number) => void,
): StrategyReport {
  const scores: SeriesScore[] = [];
  const unscored: string[] = [];
  for (const [seriesId, samples] of fleet.series) {
    const score = replaySeries(
      seriesId,
      samples,
      fleet.declared?.get(seriesId),
      strategy,
      mode,
    );
    if (score === undefined) unscored.push(seriesId);
    else scores.push(score);
    onSeriesDone?.(samples.timesMs.length);
  }
  return fleetReport(
    { name: strategy.name, parameters: strategy.parameters, apply: mode },
    scores,
    unscored,
  );
}
