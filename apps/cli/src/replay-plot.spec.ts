import {
  replayFleet,
  staticBaseline,
  type DeclaredSizes,
  type Fleet,
  type SeriesSamples,
} from '@tandem/replay';
import {
  configureStrategy,
  STRATEGIES,
  type Strategy,
} from '@tandem/strategies';
import type { Command } from './args.js';
import { replayPlot } from './replay-plot.js';
import { SWEPT_MARGINS } from './replay-plot-sweep.js';

const MINUTE_MS = 60_000;
const MIB = 1024 ** 2;
const SPECIAL_ID = 'step <&> "quoted" \'s';

/** Three days every 5 minutes; memory from `memoryMiB(day)`, CPU a steady 200 m. */
function series(memoryMiB: (day: number) => number): SeriesSamples {
  const timesMs = Array.from({ length: 3 * 288 }, (_, i) => i * 5 * MINUTE_MS);
  return {
    timesMs,
    cpuMillicores: timesMs.map((_, i) => 200 + (i % 7) * 10),
    memoryBytes: timesMs.map((timeMs) =>
      Math.round(memoryMiB(timeMs / (1440 * MINUTE_MS)) * MIB),
    ),
  };
}

const declared: DeclaredSizes = {
  timesMs: [0],
  sizes: [{ cpu: 1000, memory: 2048 * MIB }],
};

const TAG =
  /^<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<&]*(?:&(?:amp|lt|gt|quot|apos);[^"<&]*)*")*)\s*(\/?)>$/;

/**
 * Fails unless `document` is well-formed XML as far as an SVG written here goes: one
 * prolog, tags balanced and named alike, attributes quoted, text free of `<` and of bare `&`.
 */
function expectWellFormed(document: string): void {
  const body = document.replace(/^<\?xml [^?]*\?>\n/, '');
  const open: string[] = [];
  let roots = 0;
  for (const [token = ''] of body.matchAll(/<[^>]*>|[^<]+/g)) {
    if (!token.startsWith('<')) {
      expect(token.replace(/&(amp|lt|gt|quot|apos);/g, '')).not.toMatch(/[&>]/);
      if (open.length === 0) expect(token.trim()).toBe('');
      continue;
    }
    const match = TAG.exec(token);
    expect(match).not.toBeNull();
    const [, closing, name = '', , selfClosing] = match ?? [];
    if (open.length === 0) roots += 1;
    if (closing === '/') expect(open.pop()).toBe(name);
    else if (selfClosing !== '/') open.push(name);
  }
  expect(open).toEqual([]);
  expect(roots).toBe(1);
}

describe('expectWellFormed', () => {
  it.each([
    '<svg><g></svg>',
    '<svg><g></g>',
    '<svg>a < b</svg>',
    '<svg>a & b</svg>',
    '<svg a=1/>',
    '<svg/><svg/>',
  ])('refuses %s', (document) => {
    expect(() => expectWellFormed(document)).toThrow();
  });

  it('accepts a document with text and entities', () => {
    expectWellFormed(
      '<?xml version="1.0"?>\n<svg x="&amp;"><g/><t>a &lt; b</t></svg>\n',
    );
  });
});

/** A steady series, one whose memory triples after the warm-up day, a slow riser. */
const fleet: Fleet = {
  series: new Map([
    ['steady', series(() => 300)],
    [SPECIAL_ID, series((day) => (day < 1.5 ? 200 : 600))],
    ['riser', series((day) => 200 + day * 20)],
  ]),
  declared: new Map(
    ['steady', SPECIAL_ID, 'riser'].map((id) => [id, declared] as const),
  ),
};

function configured(
  name: string,
  texts: Record<string, string> = {},
): Strategy {
  const definition = STRATEGIES.find((candidate) => candidate.name === name);
  if (definition === undefined) throw new Error(`no strategy ${name}`);
  const made = configureStrategy(definition, texts);
  if ('error' in made) throw new Error(made.error);
  return made.strategy;
}

const strategies = [
  staticBaseline,
  ...STRATEGIES.map((definition) => configured(definition.name)),
];

const command: Extract<Command, { kind: 'replay' }> = {
  kind: 'replay',
  usageFile: 'usage.csv',
  capacityFile: 'capacity.csv',
  strategies,
  apply: ['evict'],
  output: 'table',
  plotFile: 'plot.svg',
  progress: false,
};

const reports = strategies.map((strategy) =>
  replayFleet(fleet, strategy, 'evict'),
);
const svg = replayPlot(fleet, command, reports);

/** The markup of each `<g data-strategy=...>` curve, by its label. */
function curves(document: string): Map<string, string> {
  return new Map(
    [...document.matchAll(/<g data-strategy="([^"]*)">(.*?)<\/g>/g)].map(
      ([, label = '', marks = '']) => [label, marks],
    ),
  );
}

describe('replayPlot', () => {
  it('writes a well-formed SVG document', () => {
    expect(
      svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg '),
    ).toBe(true);
    expectWellFormed(svg);
  });

  it('draws one curve of six margins per strategy with a margin, in both panels, and the static baseline as one point', () => {
    const withMargin = strategies.filter(
      (strategy) => 'margin' in strategy.parameters,
    );
    expect(withMargin.length).toBeGreaterThan(1);
    const drawn = [...svg.matchAll(/<g data-strategy="([^"]*)">(.*?)<\/g>/g)];
    // Two panels, every strategy in each.
    expect(drawn).toHaveLength(2 * strategies.length);
    const byLabel = curves(svg);
    for (const strategy of withMargin) {
      const marks = byLabel.get(strategy.name) ?? '';
      const margins = [...marks.matchAll(/data-margin="([^"]*)"/g)].map(
        ([, margin]) => Number(margin),
      );
      expect(margins).toEqual([...SWEPT_MARGINS]);
      // The default margin is ringed.
      expect(marks.match(/ r="7"/g)).toHaveLength(1);
    }
    const baseline = byLabel.get('static') ?? '';
    expect(baseline.match(/<rect /g)).toHaveLength(1);
    expect(baseline).not.toContain('data-margin');
  });

  it('names every strategy in the legends', () => {
    for (const strategy of strategies) {
      expect(svg).toContain(`>${strategy.name}</text>`);
      expect(svg).toContain(`>${strategy.name} request</text>`);
    }
  });

  it('labels a strategy by the parameters it was given away from their defaults', () => {
    const variant = configured('upstream', {
      margin: '0.3',
      'oom-min-bump-up': '64Mi',
    });
    const drawn = replayPlot(fleet, { ...command, strategies: [variant] }, []);
    expect(
      curves(drawn).has('upstream (margin=0.3, oom-min-bump-up=67108864)'),
    ).toBe(true);
  });

  it('gives the same bytes for the same input', () => {
    expect(replayPlot(fleet, command, reports)).toBe(svg);
  });

  it('shows the series with the most OOM kills under upstream, its id escaped', () => {
    const upstream = reports.find((report) => report.name === 'upstream');
    const kills = (id: string) =>
      upstream?.perSeries.find((score) => score.seriesId === id)?.oomEvents ??
      0;
    expect(kills(SPECIAL_ID)).toBeGreaterThan(kills('steady'));
    expect(kills(SPECIAL_ID)).toBeGreaterThan(kills('riser'));
    expect(svg).toContain(
      '>Series step &lt;&amp;&gt; &quot;quoted&quot; &apos;s: ',
    );
    expect(svg).not.toContain(SPECIAL_ID);
  });

  it('shows the first series when no report is upstream', () => {
    const drawn = replayPlot(
      fleet,
      { ...command, strategies: [configured('autopilot')] },
      [],
    );
    expect(drawn).toContain('>Series steady: the first series</text>');
    expectWellFormed(drawn);
  });
});
