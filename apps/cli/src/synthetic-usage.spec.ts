import { parseUsageRow, USAGE_CSV_HEADER } from './usage-csv.js';
import {
  syntheticUsage,
  type SyntheticUsageOptions,
} from './synthetic-usage.js';

const OPTIONS: SyntheticUsageOptions = {
  seed: 7,
  series: 5,
  days: 14,
  intervalSeconds: 300,
};

const text = (options: SyntheticUsageOptions) =>
  [...syntheticUsage(options)].join('');

/** Each series' samples, parsed as `tandem recommend` reads them. */
function samplesBySeries(options: SyntheticUsageOptions) {
  const [header, ...rows] = text(options).trimEnd().split('\n');
  expect(header).toBe(USAGE_CSV_HEADER);
  const series = new Map<
    string,
    { timeMs: number; cpuMillicores: number; memoryBytes: number }[]
  >();
  rows.forEach((row, index) => {
    const sample = parseUsageRow(row, index + 2);
    if (sample === undefined) throw new Error(`blank row ${index + 2}`);
    const samples = series.get(sample.seriesId) ?? [];
    samples.push(sample);
    series.set(sample.seriesId, samples);
  });
  return series;
}

const mean = (values: readonly number[]) =>
  values.reduce((sum, value) => sum + value, 0) / values.length;
const DAY_MS = 86_400_000;

describe('syntheticUsage', () => {
  it('is the same for the same seed, and another for another seed', () => {
    expect(text(OPTIONS)).toBe(text(OPTIONS));
    expect(text({ ...OPTIONS, seed: 8 })).not.toBe(text(OPTIONS));
  });

  it('keeps earlier series unchanged when more are asked for', () => {
    const fewer = samplesBySeries(OPTIONS);
    const more = samplesBySeries({ ...OPTIONS, series: 8 });
    for (const [id, samples] of fewer) expect(more.get(id)).toEqual(samples);
  });

  it('writes every series at every interval, in time order, in readable rows', () => {
    const series = samplesBySeries(OPTIONS);
    expect([...series.keys()]).toEqual([
      'web-000',
      'batch-001',
      'leak-002',
      'step-003',
      'idle-004',
    ]);
    for (const samples of series.values()) {
      expect(samples).toHaveLength((14 * 86_400) / 300);
      const times = samples.map((sample) => sample.timeMs);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(Math.min(...samples.map((s) => s.cpuMillicores))).toBeGreaterThan(
        0,
      );
    }
  });

  it('gives each shape what its name says', () => {
    const series = samplesBySeries(OPTIONS);
    const at = (id: string, pick: (timeMs: number) => boolean) =>
      (series.get(id) ?? []).filter((sample) =>
        pick(sample.timeMs - (series.get(id)?.[0]?.timeMs ?? 0)),
      );
    const hourOf = (ms: number) => Math.floor((ms % DAY_MS) / 3_600_000);
    // web: afternoons above nights, weekdays above weekends (day 2 and 3 of each week).
    const web = (pick: (ms: number) => boolean) =>
      mean(at('web-000', pick).map((sample) => sample.cpuMillicores));
    const weekend = (ms: number) =>
      [2, 3].includes(Math.floor(ms / DAY_MS) % 7);
    expect(web((ms) => hourOf(ms) === 14 && !weekend(ms))).toBeGreaterThan(
      3 * web((ms) => hourOf(ms) === 2 && !weekend(ms)),
    );
    expect(web((ms) => hourOf(ms) === 14 && !weekend(ms))).toBeGreaterThan(
      1.3 * web((ms) => hourOf(ms) === 14 && weekend(ms)),
    );
    // step: memory 1.8x after 60 % of the trace.
    const step = (pick: (ms: number) => boolean) =>
      mean(at('step-003', pick).map((sample) => sample.memoryBytes));
    const stepMs = 0.6 * 14 * DAY_MS;
    expect(step((ms) => ms >= stepMs) / step((ms) => ms < stepMs)).toBeCloseTo(
      1.8,
      1,
    );
    // leak: the sixth day of a week above its first.
    const leak = (day: number) =>
      mean(
        at('leak-002', (ms) => Math.floor(ms / DAY_MS) === day).map(
          (sample) => sample.memoryBytes,
        ),
      );
    expect(leak(6) / leak(0)).toBeCloseTo(1.24, 1);
    expect(leak(7) / leak(0)).toBeCloseTo(1, 1);
    // batch: bursts, so its peak is far above its median.
    const batch = (series.get('batch-001') ?? [])
      .map((s) => s.cpuMillicores)
      .sort((a, b) => a - b);
    expect(batch[batch.length - 1] ?? 0).toBeGreaterThan(
      10 * (batch[Math.floor(batch.length / 2)] ?? 0),
    );
  });
});
