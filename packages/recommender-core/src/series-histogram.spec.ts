import { Histogram, Registry } from '@tandem/telemetry';
import { SeriesHistogram } from './series-histogram.js';

const OPTIONS = {
  name: 'test_diffs',
  help: 'Diffs, for a test',
  labelNames: ['mode', 'resource'] as const,
  buckets: [-2.5, -0.5, 0, 0.001, 0.01, 0.5, 1, 2.5, 100],
};

/** Values on, between and beyond the bounds, of both signs. */
const VALUES = [
  -3, -2.5, -0.75, -0.5, 0, 0, 1e-9, 0.001, 0.0010001, 0.3, 0.5, 1, 1.5, 2.5,
  99, 100, 100.5, 1e6,
];

describe('SeriesHistogram', () => {
  it("exposes exactly what prom-client's Histogram exposes for the same observations", async () => {
    const reference = new Registry();
    const fast = new Registry();
    const histogram = new Histogram({ ...OPTIONS, registers: [reference] });
    const series = new SeriesHistogram({ ...OPTIONS, registers: [fast] });
    const cpu = series.series({ mode: 'Auto', resource: 'cpu' });
    VALUES.forEach((value, index) => {
      const labels =
        index % 3 === 0
          ? { mode: '', resource: 'memory' }
          : { mode: 'Auto', resource: 'cpu' };
      histogram.observe(labels, value);
      if (index % 3 === 0) series.observe(labels, value);
      else cpu.observe(value);
    });

    expect(await fast.metrics()).toBe(await reference.metrics());
    expect(await fast.getMetricsAsJSON()).toEqual(
      await reference.getMetricsAsJSON(),
    );
  });

  it('shows a series only once something was observed on it, as prom-client does', async () => {
    const registry = new Registry();
    const histogram = new SeriesHistogram({
      ...OPTIONS,
      registers: [registry],
    });
    const unused = histogram.series({ mode: 'Off', resource: 'cpu' });
    expect((await histogram.get()).values).toEqual([]);

    unused.observe(0.5);
    const { values } = await histogram.get();
    expect(values.map((value) => value.metricName)).toEqual([
      ...OPTIONS.buckets.map(() => 'test_diffs_bucket'),
      'test_diffs_bucket',
      'test_diffs_sum',
      'test_diffs_count',
    ]);
    expect(registry.getSingleMetric('test_diffs')).toBe(histogram);
  });

  it('counts a value above every bound only in +Inf, also with -1 as a bound (prom-client 15 files it under le="-1")', async () => {
    const histogram = new SeriesHistogram({
      ...OPTIONS,
      buckets: [-1, 0, 1],
      registers: [],
    });
    histogram.observe({ mode: '', resource: 'cpu' }, 250);
    const { values } = await histogram.get();
    expect(
      values
        .filter((value) => value.metricName === 'test_diffs_bucket')
        .map((value) => [value.labels.le, value.value]),
    ).toEqual([
      [-1, 0],
      [0, 0],
      [1, 0],
      ['+Inf', 1],
    ]);
  });

  it('counts NaN above every bound, as Go does', async () => {
    const histogram = new SeriesHistogram({ ...OPTIONS, registers: [] });
    histogram.observe({ mode: '', resource: 'cpu' }, Number.NaN);
    const { values } = await histogram.get();
    const buckets = values.filter(
      (value) => value.metricName === 'test_diffs_bucket',
    );
    expect(buckets.map((bucket) => bucket.value)).toEqual([
      ...OPTIONS.buckets.map(() => 0),
      1,
    ]);
  });
});
