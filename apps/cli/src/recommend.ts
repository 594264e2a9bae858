import {
  AggregateContainerState,
  ContainerState,
  recommendPod,
  toContainerRecommendations,
  type ResourceQuantities,
} from '@tandem/estimators';
import { timeOrder, type UsageSeries } from './usage-series.js';

export interface SeriesRecommendation {
  samples: number;
  target: ResourceQuantities;
  lowerBound: ResourceQuantities;
  upperBound: ResourceQuantities;
}

/**
 * Replays one series as the only container of one pod under one VPA with upstream
 * default settings, and returns the recommendation as of its last sample.
 */
export function recommendSeries(
  seriesId: string,
  series: UsageSeries,
): SeriesRecommendation {
  const order = timeOrder(series);
  const aggregate = new AggregateContainerState(
    series.timesMs[order[0] ?? 0] ?? 0,
  );
  const container = new ContainerState(aggregate);
  for (const index of order) {
    const timeMs = series.timesMs[index] ?? 0;
    container.addSample({
      timeMs,
      resource: 'cpu',
      usage: series.cpuMillicores[index] ?? 0,
    });
    container.addSample({
      timeMs,
      resource: 'memory',
      usage: series.memoryBytes[index] ?? 0,
    });
  }
  const [recommendation] = toContainerRecommendations(
    recommendPod(new Map([[seriesId, aggregate]])),
  );
  if (recommendation === undefined)
    throw new Error(`no recommendation was computed for series '${seriesId}'`);
  return {
    samples: series.timesMs.length,
    target: recommendation.target,
    lowerBound: recommendation.lowerBound,
    upperBound: recommendation.upperBound,
  };
}

export function recommendAll(
  series: ReadonlyMap<string, UsageSeries>,
): Map<string, SeriesRecommendation> {
  return new Map(
    [...series].map(([seriesId, samples]) => [
      seriesId,
      recommendSeries(seriesId, samples),
    ]),
  );
}
