import {
  replaySeries,
  type ApplyMode,
  type Fleet,
  type SeriesSamples,
  type SeriesScore,
  type StrategyReport,
} from '@tandem/replay';
import type { Strategy } from '@tandem/strategies';

/** A value from `timeMs` until the next one's time. */
export interface TimedValue {
  readonly timeMs: number;
  readonly value: number;
}

/** Enough points to draw a line on a page at full detail, few enough to keep the file small. */
export const MAX_LINE_POINTS = 2000;

export interface ChosenSeries {
  readonly seriesId: string;
  /** Why this one, for the section title. */
  readonly reason: string;
}

type SeriesOoms = Pick<SeriesScore, 'seriesId' | 'oomEvents'>;

/** What choosing a series reads of a report. */
export type OomCounts = Pick<StrategyReport, 'name' | 'apply'> & {
  readonly perSeries: readonly SeriesOoms[];
};

/**
 * The series with the most OOM kills under the first `upstream` report (the first such
 * in fleet order), the one where strategies differ most visibly; else the fleet's first.
 */
export function chooseSeries(
  fleet: Fleet,
  reports: readonly OomCounts[],
): ChosenSeries | undefined {
  const upstream = reports.find((report) => report.name === 'upstream');
  const worst = upstream?.perSeries.reduce<SeriesOoms | undefined>(
    (most, score) =>
      most === undefined || score.oomEvents > most.oomEvents ? score : most,
    undefined,
  );
  if (upstream !== undefined && worst !== undefined)
    return {
      seriesId: worst.seriesId,
      reason: `${worst.oomEvents} OOM kill${worst.oomEvents === 1 ? '' : 's'} under upstream (apply ${upstream.apply}), the most of any series`,
    };
  const [first] = fleet.series.keys();
  return first === undefined
    ? undefined
    : { seriesId: first, reason: 'the first series' };
}

/** One strategy's requests over the series, as drawn. */
export interface RequestTrace {
  readonly strategy: Strategy;
  readonly cpuMillicores: readonly TimedValue[];
  readonly memoryBytes: readonly TimedValue[];
  /** Samples whose memory passed the limit in force, warm-up included. */
  readonly oomTimesMs: readonly number[];
}

/** Replays the one series through `strategy`, keeping the request in force at every sample. */
export function traceRequests(
  samples: SeriesSamples,
  fleet: Fleet,
  seriesId: string,
  strategy: Strategy,
  mode: ApplyMode,
): RequestTrace {
  const timesMs: number[] = [];
  const cpu: number[] = [];
  const memory: number[] = [];
  replaySeries(
    seriesId,
    samples,
    fleet.declared?.get(seriesId),
    strategy,
    mode,
    (timeMs, request) => {
      timesMs.push(timeMs);
      cpu.push(request.cpu);
      memory.push(request.memory);
    },
  );
  // onStep hears every sample from the first with a request on, so the last ones line up.
  const skipped = samples.timesMs.length - timesMs.length;
  const oomTimesMs = timesMs.filter(
    (_, i) => (samples.memoryBytes[skipped + i] ?? 0) > (memory[i] ?? 0),
  );
  return {
    strategy,
    cpuMillicores: downsampleMax(changePoints(timesMs, cpu), MAX_LINE_POINTS),
    memoryBytes: downsampleMax(changePoints(timesMs, memory), MAX_LINE_POINTS),
    oomTimesMs,
  };
}

/** The points where the value changes (and the first): a step line needs no others. */
export function changePoints(
  timesMs: readonly number[],
  values: readonly number[],
): TimedValue[] {
  return timesMs.flatMap((timeMs, i) => {
    const value = values[i] ?? 0;
    return i > 0 && value === values[i - 1] ? [] : [{ timeMs, value }];
  });
}

/**
 * At most `maxPoints` points: consecutive runs of points become one at the run's first
 * time with the run's largest value, so peaks stay visible.
 */
export function downsampleMax(
  points: readonly TimedValue[],
  maxPoints: number,
): TimedValue[] {
  if (points.length <= maxPoints) return [...points];
  const run = Math.ceil(points.length / maxPoints);
  const kept: TimedValue[] = [];
  for (let start = 0; start < points.length; start += run) {
    const bucket = points.slice(start, start + run);
    kept.push({
      timeMs: bucket[0]?.timeMs ?? 0,
      value: Math.max(...bucket.map((point) => point.value)),
    });
  }
  return kept;
}

/** A series' usage as drawn: each line at most MAX_LINE_POINTS points, peaks kept. */
export function usageLines(samples: SeriesSamples): {
  cpuMillicores: TimedValue[];
  memoryBytes: TimedValue[];
} {
  const line = (values: readonly number[]) =>
    downsampleMax(
      samples.timesMs.map((timeMs, i) => ({ timeMs, value: values[i] ?? 0 })),
      MAX_LINE_POINTS,
    );
  return {
    cpuMillicores: line(samples.cpuMillicores),
    memoryBytes: line(samples.memoryBytes),
  };
}
