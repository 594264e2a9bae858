import type { ApplyMode } from '@tandem/replay';
import {
  SWEPT_MARGINS,
  strategyLabel,
  type SweepCurve,
  type SweepPoint,
} from './replay-plot-sweep.js';
import {
  lineSwatch,
  PAGE,
  strategyColour,
  strategyStroke,
} from './replay-plot-style.js';
import {
  element,
  linePath,
  text,
  legend,
  countAxis,
  linearAxis,
  panel,
  type Panel,
} from '@tandem/svg-plot';

const PANEL_HEIGHT = 340;
const PANEL_GAP = 110;

/** `value` (a fraction) as a percentage, without float noise: 0.35 → 35%. */
export function percent(value: number): string {
  return `${Number((value * 100).toPrecision(6))}%`;
}

/**
 * Two panels side by side, CPU and memory slack against OOM kills, one curve a strategy
 * from margin 0 to the largest, under a legend. Returns the markup and where it ends.
 */
export function sweepSection(
  curves: readonly SweepCurve[],
  mode: ApplyMode,
  top: number,
): { markup: string; bottom: number } {
  const points = curves.flatMap((curve) => curve.points);
  const xAxis = countAxis(
    Math.max(0, ...points.map((point) => point.oomKills)),
    'OOM kills, whole fleet after warm-up (log scale)',
  );
  const width = (PAGE.right - PAGE.left - PANEL_GAP) / 2;
  const slackPanel = (
    index: number,
    what: string,
    slack: (point: SweepPoint) => number,
  ) => {
    const values = points.map(slack);
    const drawn = panel(
      `${what}-slack`,
      {
        left: PAGE.left + index * (width + PANEL_GAP),
        top: top + 40,
        width,
        height: PANEL_HEIGHT,
      },
      `${what} slack against OOM kills`,
      xAxis,
      linearAxis(
        Math.min(...values),
        Math.max(...values),
        `${what} slack over request (fleet)`,
        percent,
      ),
    );
    return [
      drawn.decoration,
      ...curves.map((curve, i) => curveMarks(drawn, curve, slack, i)),
    ];
  };
  const first = SWEPT_MARGINS[0];
  const last = SWEPT_MARGINS[SWEPT_MARGINS.length - 1];
  const legendTop = top + 40 + PANEL_HEIGHT + 55;
  const markup = [
    text(
      PAGE.left,
      top,
      `Slack against OOM kills, each strategy replayed with margins ${SWEPT_MARGINS.join(', ')} (apply ${mode})`,
      { 'font-size': 16, 'font-weight': 'bold' },
    ),
    ...slackPanel(0, 'CPU', (point) => point.cpuSlack),
    ...slackPanel(1, 'Memory', (point) => point.memorySlack),
    legend(PAGE.left, legendTop, PAGE.right - PAGE.left, [
      ...curves.map((curve, i) => ({
        swatch:
          curve.points.length === 1
            ? pointMark(12, 6, strategyColour(i))
            : lineSwatch(i),
        label: strategyLabel(curve.strategy),
      })),
      ...(curves.some((curve) => curve.points.length > 1)
        ? [
            {
              swatch: dot(12, 6, '#333') + ring(12, 6, '#333'),
              label: 'default margin',
            },
          ]
        : []),
      ...(curves.some((curve) => curve.points.length === 1)
        ? [{ swatch: pointMark(12, 6, '#333'), label: 'no margin: one point' }]
        : []),
    ]),
    text(
      PAGE.left,
      legendTop + 44,
      `A curve runs from margin ${first} (labelled m=0: least slack, most OOM kills) to ${last}.`,
      { fill: '#555' },
    ),
  ].join('\n');
  return { markup, bottom: legendTop + 50 };
}

function curveMarks(
  drawn: Panel,
  curve: SweepCurve,
  slack: (point: SweepPoint) => number,
  index: number,
): string {
  const colour = strategyColour(index);
  const placed = curve.points.map((point) => ({
    point,
    x: drawn.x(point.oomKills),
    y: drawn.y(slack(point)),
  }));
  const [start] = placed;
  const marks =
    curve.points.length === 1
      ? placed.map(({ x, y }) => pointMark(x, y, colour))
      : [
          element('path', {
            d: linePath(placed),
            fill: 'none',
            ...strategyStroke(index),
            'stroke-width': 2,
          }),
          ...placed.map(({ point, x, y }) =>
            point.margin === curve.defaultMargin
              ? dot(x, y, colour, point.margin) + ring(x, y, colour)
              : dot(x, y, colour, point.margin),
          ),
          start === undefined
            ? ''
            : text(start.x + 7, start.y + 14, `m=${start.point.margin}`, {
                fill: colour,
                'font-size': 10,
              }),
        ];
  return element(
    'g',
    { 'data-strategy': strategyLabel(curve.strategy) },
    marks.join(''),
  );
}

/** A point of a curve; the margin, when given, is kept for whoever reads the file. */
function dot(x: number, y: number, colour: string, margin?: number): string {
  return element('circle', {
    cx: x,
    cy: y,
    r: 3.5,
    fill: colour,
    ...(margin === undefined ? {} : { 'data-margin': String(margin) }),
  });
}

/** Rings the point at the default margin. */
function ring(x: number, y: number, colour: string): string {
  return element('circle', {
    cx: x,
    cy: y,
    r: 7,
    fill: 'none',
    stroke: colour,
    'stroke-width': 1.5,
  });
}

/** A strategy without a margin: a square. */
function pointMark(x: number, y: number, colour: string): string {
  return element('rect', {
    x: x - 5,
    y: y - 5,
    width: 10,
    height: 10,
    fill: colour,
  });
}
