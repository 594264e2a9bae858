import type { Fleet } from '@tandem/replay';
import { upstream } from '@tandem/strategies';
import {
  changePoints,
  chooseSeries,
  downsampleMax,
  MAX_LINE_POINTS,
  type OomCounts,
  traceRequests,
  usageLines,
} from './replay-plot-trace.js';

const MINUTE_MS = 60_000;

const report = (name: string, kills: Record<string, number>): OomCounts => ({
  name,
  apply: 'evict',
  perSeries: Object.entries(kills).map(([seriesId, oomEvents]) => ({
    seriesId,
    oomEvents,
  })),
});

const samples = {
  timesMs: [0, 1, 2],
  cpuMillicores: [1, 1, 1],
  memoryBytes: [1, 1, 1],
};
const fleet: Fleet = {
  series: new Map([
    ['a', samples],
    ['b', samples],
    ['c', samples],
  ]),
};

describe('chooseSeries', () => {
  it('takes the most OOM kills under the first upstream report, the first of equals', () => {
    const reports = [
      report('autopilot', { a: 90 }),
      report('upstream', { a: 1, b: 5, c: 5 }),
      report('upstream', { a: 50 }),
    ];
    expect(chooseSeries(fleet, reports)).toEqual({
      seriesId: 'b',
      reason:
        '5 OOM kills under upstream (apply evict), the most of any series',
    });
  });

  it('takes the fleet’s first series without an upstream report with scores', () => {
    expect(chooseSeries(fleet, [report('upstream', {})])?.seriesId).toBe('a');
    expect(chooseSeries(fleet, [])?.seriesId).toBe('a');
    expect(chooseSeries({ series: new Map() }, [])).toBeUndefined();
  });
});

describe('changePoints', () => {
  it('keeps the first point and each change', () => {
    expect(changePoints([0, 1, 2, 3, 4], [5, 5, 7, 7, 5])).toEqual([
      { timeMs: 0, value: 5 },
      { timeMs: 2, value: 7 },
      { timeMs: 4, value: 5 },
    ]);
  });
});

describe('downsampleMax', () => {
  const points = [3, 9, 1, 4, 4, 8, 2].map((value, timeMs) => ({
    timeMs,
    value,
  }));

  it('keeps each run’s first time and largest value', () => {
    expect(downsampleMax(points, 3)).toEqual([
      { timeMs: 0, value: 9 },
      { timeMs: 3, value: 8 },
      { timeMs: 6, value: 2 },
    ]);
  });

  it('leaves short lines alone', () => {
    expect(downsampleMax(points, 7)).toEqual(points);
  });
});

describe('usageLines', () => {
  it('draws a long series with at most MAX_LINE_POINTS points, keeping the peak', () => {
    const count = 10 * MAX_LINE_POINTS + 3;
    const timesMs = Array.from({ length: count }, (_, i) => i * MINUTE_MS);
    const lines = usageLines({
      timesMs,
      cpuMillicores: timesMs.map((_, i) => (i === 12_345 ? 4000 : 100)),
      memoryBytes: timesMs.map(() => 1),
    });
    expect(lines.cpuMillicores.length).toBeLessThanOrEqual(MAX_LINE_POINTS);
    expect(Math.max(...lines.cpuMillicores.map((p) => p.value))).toBe(4000);
  });
});

describe('traceRequests', () => {
  it('follows the request in force and ticks the samples whose memory passed it', () => {
    const MIB = 1024 ** 2;
    const timesMs = Array.from(
      { length: 3 * 288 },
      (_, i) => i * 5 * MINUTE_MS,
    );
    const memoryBytes = timesMs.map((_, i) => (i < 400 ? 100 : 400) * MIB);
    const series = {
      timesMs,
      cpuMillicores: timesMs.map(() => 100),
      memoryBytes,
    };
    const made = upstream.create(
      Object.fromEntries(
        Object.entries(upstream.parameters).map(([name, spec]) => [
          name,
          spec.fallback,
        ]),
      ),
    );
    const trace = traceRequests(
      series,
      { series: new Map([['s', series]]) },
      's',
      made,
      'evict',
    );
    // Without a declared size the first request is the first recommendation.
    expect(trace.memoryBytes[0]?.timeMs).toBe(timesMs[1]);
    expect(trace.oomTimesMs).toContain(timesMs[400]);
    expect(trace.oomTimesMs.every((t) => t >= (timesMs[400] ?? 0))).toBe(true);
    const last = trace.memoryBytes[trace.memoryBytes.length - 1];
    expect(last?.value).toBeGreaterThan(400 * MIB);
  });
});
