import {
  replayFleet,
  staticBaseline,
  type Fleet,
  type SeriesSamples,
} from '@tandem/replay';
import { autopilot, configureStrategy } from '@tandem/strategies';
import {
  marginSweep,
  strategyLabel,
  SWEPT_MARGINS,
} from './replay-plot-sweep.js';

const MIB = 1024 ** 2;

function series(shift: number): SeriesSamples {
  const timesMs = Array.from({ length: 3 * 288 }, (_, i) => i * 300_000);
  return {
    timesMs,
    cpuMillicores: timesMs.map((_, i) => 100 + ((i * 7 + shift) % 13) * 20),
    memoryBytes: timesMs.map((_, i) => (200 + ((i + shift) % 50)) * MIB),
  };
}

const fleet: Fleet = {
  series: new Map([
    ['one', series(0)],
    ['two', series(5)],
  ]),
  declared: new Map(
    ['one', 'two'].map((id) => [
      id,
      { timesMs: [0], sizes: [{ cpu: 1000, memory: 1024 * MIB }] },
    ]),
  ),
};

function configured(texts: Record<string, string>) {
  const made = configureStrategy(autopilot, texts);
  if ('error' in made) throw new Error(made.error);
  return made.strategy;
}

describe('marginSweep', () => {
  const variant = configured({
    'cpu-percentile': '0.5',
    'cpu-half-life': '6h',
  });
  const [curve, baseline] = marginSweep(
    fleet,
    [variant, staticBaseline],
    'evict',
  );

  it('replays a strategy at every swept margin, keeping its other parameters', () => {
    expect(curve?.points.map((point) => point.margin)).toEqual([
      ...SWEPT_MARGINS,
    ]);
    expect(curve?.defaultMargin).toBe(0.15);
    const direct = replayFleet(
      fleet,
      configured({
        'cpu-percentile': '0.5',
        'cpu-half-life': '6h',
        margin: '0.05',
      }),
      'evict',
    );
    expect(curve?.points[1]).toEqual({
      margin: 0.05,
      oomKills: direct.totals.oomEvents,
      cpuSlack: direct.relative.cpuSlack,
      memorySlack: direct.relative.memorySlack,
    });
  });

  it('gives more slack for a larger margin', () => {
    const slack = curve?.points.map((point) => point.cpuSlack) ?? [];
    expect(slack).toEqual([...slack].sort((a, b) => a - b));
    expect(slack[0]).toBeLessThan(slack[slack.length - 1] ?? 0);
  });

  it('replays a strategy without a margin once', () => {
    expect(baseline?.points).toHaveLength(1);
    expect(baseline?.points[0]?.margin).toBeUndefined();
    expect(baseline?.defaultMargin).toBeUndefined();
  });
});

describe('strategyLabel', () => {
  it('names the parameters away from their defaults as they are written', () => {
    expect(strategyLabel(configured({}))).toBe('autopilot');
    expect(
      strategyLabel(configured({ 'cpu-half-life': '360m', margin: '0.15' })),
    ).toBe('autopilot (cpu-half-life=6h)');
    expect(strategyLabel(staticBaseline)).toBe('static');
  });
});
