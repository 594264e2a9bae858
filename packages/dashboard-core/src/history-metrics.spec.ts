import fc from 'fast-check';
import type { PrometheusSeries } from '@tandem/prometheus-api';
import {
  HISTORY_METRICS,
  historyFromSeries,
  historyGauges,
  historySelector,
  joinHistory,
  type HistoryGauge,
} from './history-metrics.js';
import { historyStepMs, historyView } from './history-range.js';
import { RESOURCE_LINES, resourceKey } from './history-values.js';

const WORKLOAD = { namespace: 'shop', kind: 'Deployment', workload: 'web' };

/** What a range query of the exported gauges answers: one series per gauge, with `__name__`. */
function scraped(
  samples: readonly { timeMs: number; gauges: readonly HistoryGauge[] }[],
): PrometheusSeries[] {
  const series = new Map<string, PrometheusSeries>();
  for (const { timeMs, gauges } of samples)
    for (const { metric, labels, value } of gauges) {
      const all = { __name__: metric, ...labels };
      const id = JSON.stringify(all);
      const found = series.get(id) ?? { labels: all, points: [] };
      series.set(id, {
        labels: all,
        points: [...found.points, { timeMs, value }],
      });
    }
  return [...series.values()];
}

describe('historyGauges', () => {
  it('exports replicas by kind and each container line in cores or bytes', () => {
    expect(
      historyGauges(WORKLOAD, {
        replicas: 4,
        native: 7,
        'app|cpu|usage': 250,
        'app|memory|target': 268_435_456,
      }),
    ).toEqual([
      {
        metric: 'tandem_dashboard_workload_replicas',
        labels: { ...WORKLOAD, replicas: 'running' },
        value: 4,
      },
      {
        metric: 'tandem_dashboard_workload_replicas',
        labels: { ...WORKLOAD, replicas: 'native_equivalent' },
        value: 7,
      },
      {
        metric: 'tandem_dashboard_container_cpu_cores',
        labels: { ...WORKLOAD, container: 'app', line: 'usage' },
        value: 0.25,
      },
      {
        metric: 'tandem_dashboard_container_memory_bytes',
        labels: { ...WORKLOAD, container: 'app', line: 'target' },
        value: 268_435_456,
      },
    ]);
  });
});

describe('historyFromSeries', () => {
  const key = fc.oneof(
    fc.constantFrom('replicas', 'native'),
    fc
      .tuple(
        fc.constantFrom('app', 'sidecar', 'db-0'),
        fc.constantFrom('cpu' as const, 'memory' as const),
        fc.constantFrom(...RESOURCE_LINES),
      )
      .map(([container, resource, line]) =>
        resourceKey(container, resource, line),
      ),
  );
  const sample = fc.dictionary(key, fc.integer({ min: 0, max: 2 ** 40 }), {
    minKeys: 1,
  });

  it('reads back, for any samples, what the gauges exported', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 10 ** 6 }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.array(sample, { minLength: 8, maxLength: 8 }),
        (times, values) => {
          const written = [...times]
            .sort((a, b) => a - b)
            .map((t, i) => ({ timeMs: t * 1000, values: values[i] ?? {} }));
          const read = historyFromSeries(
            scraped(
              written.map(({ timeMs, values: v }) => ({
                timeMs,
                gauges: historyGauges(WORKLOAD, v),
              })),
            ),
          );
          expect(read).toHaveLength(written.length);
          read.forEach((point, i) => {
            expect(point.timeMs).toBe(written[i]?.timeMs);
            const expected = written[i]?.values ?? {};
            expect(Object.keys(point.values).sort()).toEqual(
              Object.keys(expected).sort(),
            );
            // Cores are millicores / 1000: read back within a float's rounding.
            for (const [name, value] of Object.entries(expected))
              expect(
                Math.abs((point.values[name] ?? NaN) - value),
              ).toBeLessThanOrEqual(value * 1e-12);
          });
        },
      ),
    );
  });

  it('skips series it did not write: another metric, an unknown line or replicas label', () => {
    const points = [{ timeMs: 1000, value: 1 }];
    expect(
      historyFromSeries([
        { labels: { __name__: 'up', ...WORKLOAD }, points },
        {
          labels: {
            __name__: HISTORY_METRICS.cpu,
            ...WORKLOAD,
            container: 'app',
            line: 'limit',
          },
          points,
        },
        {
          labels: {
            __name__: HISTORY_METRICS.replicas,
            ...WORKLOAD,
            replicas: 'desired',
          },
          points,
        },
        {
          labels: {
            __name__: HISTORY_METRICS.memory,
            ...WORKLOAD,
            line: 'usage',
          },
          points,
        },
      ]),
    ).toEqual([]);
  });
});

describe('historySelector', () => {
  it('selects the three metrics of one workload', () => {
    expect(historySelector(WORKLOAD)).toBe(
      '{__name__=~"tandem_dashboard_workload_replicas|tandem_dashboard_container_cpu_cores|tandem_dashboard_container_memory_bytes",namespace="shop",kind="Deployment",workload="web"}',
    );
  });

  it('keeps a quote or backslash in a name inside its label value', () => {
    expect(historySelector({ ...WORKLOAD, workload: 'we"b\\",x="' })).toContain(
      ',workload="we\\"b\\\\\\",x=\\""}',
    );
  });
});

describe('joinHistory', () => {
  it("takes memory's points only after Prometheus' last", () => {
    const point = (timeMs: number, v: number) => ({
      timeMs,
      values: { replicas: v },
    });
    expect(
      joinHistory(
        [point(1, 1), point(2, 1), point(3, 1)],
        [point(2, 2), point(3, 2), point(4, 2)],
      ),
    ).toEqual([point(1, 1), point(2, 1), point(3, 1), point(4, 2)]);
    expect(joinHistory([point(1, 1)], [])).toEqual([point(1, 1)]);
    expect(joinHistory([], [point(1, 2)])).toEqual([point(1, 2)]);
  });
});

describe('historyView', () => {
  const DAY = 24 * 60 * 60_000;
  const names = (view: ReturnType<typeof historyView>) =>
    view.offered.map(({ name }) => name);

  it('offers, without Prometheus, the ranges up to the first covering memory, and shows that one by default', () => {
    const view = historyView(undefined, DAY, false);
    expect(names(view)).toEqual(['1h', '6h', '24h']);
    expect(view.range.name).toBe('24h');
    expect(historyView('7d', DAY, false).range.name).toBe('24h');
    expect(historyView('1h', DAY, false).range.name).toBe('1h');
    expect(names(historyView(undefined, 2 * 60 * 60_000, false))).toEqual([
      '1h',
      '6h',
    ]);
    expect(names(historyView(undefined, 90 * DAY, false))).toHaveLength(5);
  });

  it('offers every range with Prometheus, memory still the default', () => {
    const view = historyView('nonsense', DAY, true);
    expect(names(view)).toEqual(['1h', '6h', '24h', '7d', '30d']);
    expect(view.range.name).toBe('24h');
    expect(historyView('30d', DAY, true).range.ms).toBe(30 * DAY);
  });
});

describe('historyStepMs', () => {
  it('keeps a range query near 600 points, in whole seconds, never under the sample interval', () => {
    expect(historyStepMs(30 * 24 * 3_600_000, 15_000)).toBe(4_320_000);
    expect(historyStepMs(7 * 24 * 3_600_000, 15_000)).toBe(1_008_000);
    expect(historyStepMs(60 * 60_000, 15_000)).toBe(15_000);
    expect(historyStepMs(1_000_001, 1_000)).toBe(2_000);
  });
});
