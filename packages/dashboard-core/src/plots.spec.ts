import fc from 'fast-check';
import { resourcePlot, replicasPlot, type HistoryPoint } from './plots.js';

/**
 * Whether `markup` is one well-formed element: every tag closed in order, attributes
 * quoted, no `<` or `&` outside a tag or an entity. Enough to catch unescaped text.
 */
function wellFormed(markup: string): boolean {
  const open: string[] = [];
  const token =
    /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|&(?:[a-z]+|#\d+);|([<&])/gy;
  let at = 0;
  let roots = 0;
  while (at < markup.length) {
    const next = markup.indexOf('<', at);
    const amp = markup.indexOf('&', at);
    const stop = Math.min(
      next === -1 ? markup.length : next,
      amp === -1 ? markup.length : amp,
    );
    if (stop === markup.length) break;
    token.lastIndex = stop;
    const match = token.exec(markup);
    if (match === null || match[5] !== undefined) return false;
    const [, closing, name, , selfClosing] = match;
    if (name !== undefined) {
      if (closing === '/') {
        if (open.pop() !== name) return false;
      } else if (selfClosing !== '/') {
        if (open.length === 0) roots += 1;
        open.push(name);
      } else if (open.length === 0) roots += 1;
    }
    at = token.lastIndex;
  }
  return open.length === 0 && roots === 1;
}

const ariaLabel = (svg: string) => /aria-label="([^"]*)"/.exec(svg)?.[1];
const paths = (svg: string) => svg.match(/<path /g)?.length ?? 0;

const minute = 60_000;
const start = Date.UTC(2026, 10, 27, 6, 0);

const points: HistoryPoint[] = Array.from({ length: 10 }, (_, i) => ({
  timeMs: start + i * minute,
  values: {
    replicas: 4 + (i % 3),
    ...(i >= 2 ? { native: 6 + i } : {}),
    'app|cpu|declared': 500,
    'app|cpu|request': 300,
    'app|cpu|usage': 100 + 10 * i,
    'app|memory|request': 256 * 1024 * 1024,
  },
}));

describe('replicasPlot', () => {
  it('is an svg image labelled with what it shows', () => {
    const svg = replicasPlot(points);
    expect(svg.startsWith('<svg ')).toBe(true);
    expect(svg).toContain('role="img"');
    expect(ariaLabel(svg)).toBe(
      'Replicas: this HPA against a native one with the same target, 10 samples: running (this HPA), a native HPA would run',
    );
    expect(wellFormed(svg)).toBe(true);
  });

  it('draws one path per line with data, the native one dashed', () => {
    const svg = replicasPlot(points);
    expect(paths(svg)).toBe(2);
    expect(svg).toMatch(
      /<path d="M[^"]*" fill="none" stroke="#1f5fa8" stroke-width="2"\/>/,
    );
    expect(svg).toMatch(
      /<path d="M[^"]*" fill="none" stroke="#c0392b" stroke-width="2" stroke-dasharray="6 4"\/>/,
    );
  });

  it('joins only the points a line has: one move, then a line to each other point', () => {
    const svg = replicasPlot(points);
    const native =
      /<path d="([^"]*)"[^>]*stroke="#c0392b"/.exec(svg)?.[1] ?? '';
    expect(native.match(/M/g)).toHaveLength(1);
    expect(native.match(/L/g)).toHaveLength(7);
  });

  it('leaves out a line no point has', () => {
    const svg = replicasPlot(
      points.map((point) => ({
        timeMs: point.timeMs,
        values: { replicas: point.values['replicas'] ?? 0 },
      })),
    );
    expect(paths(svg)).toBe(1);
    expect(ariaLabel(svg)).toMatch(/: running \(this HPA\)$/);
    expect(svg).not.toContain('a native HPA would run');
  });

  it('draws a single sample without NaN or Infinity', () => {
    const svg = replicasPlot([{ timeMs: start, values: { replicas: 3 } }]);
    expect(paths(svg)).toBe(1);
    expect(svg).not.toMatch(/NaN|Infinity/);
    expect(wellFormed(svg)).toBe(true);
  });

  it('is a valid svg saying there are no samples when the history is empty', () => {
    const svg = replicasPlot([]);
    expect(wellFormed(svg)).toBe(true);
    expect(svg).toContain('role="img"');
    expect(ariaLabel(svg)).toBe(
      'Replicas: this HPA against a native one with the same target: no samples yet',
    );
    expect(paths(svg)).toBe(0);
    expect(svg).not.toMatch(/NaN|Infinity/);
  });
});

describe('resourcePlot', () => {
  it("draws the container's CPU lines that have data, labelled", () => {
    const svg = resourcePlot(points, 'app', 'cpu');
    expect(wellFormed(svg)).toBe(true);
    expect(ariaLabel(svg)).toBe(
      'app: CPU, 10 samples: declared, request now, usage',
    );
    expect(paths(svg)).toBe(3);
  });

  it('writes its value axis as Kubernetes quantities', () => {
    expect(resourcePlot(points, 'app', 'cpu')).toMatch(/>200m</);
    // Memory is drawn in whole binary units: round ticks of Mi.
    expect(resourcePlot(points, 'app', 'memory')).toMatch(/>\d+Mi</);
    expect(resourcePlot(points, 'app', 'memory')).not.toMatch(/>\d{7,}</);
  });

  it("draws nothing of another container's values", () => {
    const svg = resourcePlot(points, 'sidecar', 'cpu');
    expect(paths(svg)).toBe(0);
    expect(ariaLabel(svg)).toBe('sidecar: CPU: no samples yet');
  });

  it('escapes a container name holding markup, in its title, label and clip id', () => {
    const evil = '<script>alert(1)</script>';
    const svg = resourcePlot(
      [{ timeMs: start, values: { [`${evil}|memory|usage`]: 1024 } }],
      evil,
      'memory',
    );
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;: memory');
    expect(svg).toMatch(/clipPath id="plot-[A-Za-z0-9_-]+"/);
    expect(wellFormed(svg)).toBe(true);
    expect(paths(svg)).toBe(1);
  });

  it('is an empty but valid svg when the history is empty', () => {
    const svg = resourcePlot([], 'app', 'memory');
    expect(wellFormed(svg)).toBe(true);
    expect(ariaLabel(svg)).toBe('app: memory: no samples yet');
    expect(svg).not.toMatch(/NaN|Infinity/);
  });

  it('stays well-formed and finite for any history and container name', () => {
    const point = fc.record({
      timeMs: fc.integer({ min: 0, max: 4e12 }),
      values: fc.dictionary(
        fc.constantFrom('x|cpu|usage', 'x|cpu|target', 'x|memory|request'),
        fc.double({ min: 0, max: 1e12, noNaN: true }),
      ),
    });
    fc.assert(
      fc.property(
        fc.array(point, { maxLength: 30 }),
        fc.string(),
        fc.constantFrom('cpu' as const, 'memory' as const),
        (history, name, resource) => {
          const named = history.map((p) => ({
            timeMs: p.timeMs,
            values: Object.fromEntries(
              Object.entries(p.values).map(([key, value]) => [
                key.replace(/^x/, name),
                value,
              ]),
            ),
          }));
          const svg = resourcePlot(named, name, resource);
          expect(wellFormed(svg)).toBe(true);
          expect(svg).not.toMatch(/NaN|Infinity/);
        },
      ),
    );
  });
});
