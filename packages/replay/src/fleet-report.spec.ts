import { fleetReport, nearestRank } from './fleet-report.js';
import type { SeriesScore } from './series-score.js';

function score(
  seriesId: string,
  figures: Partial<Omit<SeriesScore, 'seriesId'>>,
): SeriesScore {
  return {
    seriesId,
    warmupHours: 192,
    scoredHours: 48,
    cpuSlackCoreHours: 0,
    memorySlackGiBHours: 0,
    cpuShortfallCoreHours: 0,
    cpuRequestCoreHours: 0,
    memoryRequestGiBHours: 0,
    cpuUsageCoreHours: 0,
    oomEvents: 0,
    requestChanges: 0,
    ...figures,
  };
}

describe('nearestRank', () => {
  it.each([
    [[], 0.5, 0],
    [[7], 0.5, 7],
    [[7], 0.95, 7],
    [[4, 1, 3, 2], 0.5, 2],
    [[4, 1, 3, 2], 0.95, 4],
    [[4, 1, 3, 2], 0, 1],
    [[4, 1, 3, 2], 1, 4],
    [Array.from({ length: 20 }, (_, i) => 20 - i), 0.95, 19],
    [Array.from({ length: 21 }, (_, i) => i + 1), 0.95, 20],
    [Array.from({ length: 100 }, (_, i) => i + 1), 0.5, 50],
    [[10, 2, 33], 0.5, 10], // numeric order, not text order
  ])('of %j at %d is %d', (values, quantile, expected) => {
    expect(nearestRank(values, quantile)).toBe(expected);
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    nearestRank(values, 0.5);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('fleetReport', () => {
  const a = score('a', {
    cpuSlackCoreHours: 10,
    memorySlackGiBHours: 4,
    cpuShortfallCoreHours: 1,
    cpuRequestCoreHours: 40,
    memoryRequestGiBHours: 8,
    cpuUsageCoreHours: 31,
    oomEvents: 2,
    requestChanges: 6,
  });
  const b = score('b', {
    scoredHours: 24,
    cpuSlackCoreHours: 30,
    memorySlackGiBHours: 1,
    cpuShortfallCoreHours: 3,
    cpuRequestCoreHours: 60,
    memoryRequestGiBHours: 8,
    cpuUsageCoreHours: 33,
    oomEvents: 0,
    requestChanges: 1,
  });
  const identity = {
    name: 'demo',
    parameters: { margin: 0.15 },
    apply: 'evict' as const,
  };

  it('sums the totals, divides the sums, and spreads per-series figures by nearest rank', () => {
    expect(fleetReport(identity, [a, b], ['short'])).toEqual({
      name: 'demo',
      parameters: { margin: 0.15 },
      apply: 'evict',
      series: 2,
      unscored: ['short'],
      totals: {
        cpuSlackCoreHours: 40,
        memorySlackGiBHours: 5,
        cpuShortfallCoreHours: 4,
        oomEvents: 2,
        requestChanges: 7,
      },
      relative: { cpuSlack: 0.4, memorySlack: 5 / 16, cpuShortfall: 4 / 64 },
      // a: cpu 0.25, memory 0.5, 1 OOM a day, 3 changes a day;
      // b: cpu 0.5, memory 0.125, 0 OOM a day, 1 change a day.
      median: {
        cpuSlack: 0.25,
        memorySlack: 0.125,
        oomEventsPerDay: 0,
        requestChangesPerDay: 1,
      },
      p95: {
        cpuSlack: 0.5,
        memorySlack: 0.5,
        oomEventsPerDay: 1,
        requestChangesPerDay: 3,
      },
      perSeries: [a, b],
    });
  });

  it('reports zeros, not NaN, for no series and for series with nothing requested', () => {
    const empty = fleetReport(identity, [], ['x', 'y']);
    expect(empty.series).toBe(0);
    expect(empty.unscored).toEqual(['x', 'y']);
    expect(empty.relative).toEqual({
      cpuSlack: 0,
      memorySlack: 0,
      cpuShortfall: 0,
    });
    expect(empty.median).toEqual({
      cpuSlack: 0,
      memorySlack: 0,
      oomEventsPerDay: 0,
      requestChangesPerDay: 0,
    });
    const idle = fleetReport(
      identity,
      [score('z', { scoredHours: 0, oomEvents: 1 })],
      [],
    );
    expect(idle.relative.cpuSlack).toBe(0);
    expect(idle.p95.oomEventsPerDay).toBe(0);
    expect(idle.totals.oomEvents).toBe(1);
  });
});
