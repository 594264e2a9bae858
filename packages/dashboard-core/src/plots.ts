import { formatCpuMillicores } from '@tandem/vpa-api';
import {
  element,
  legend,
  linearAxis,
  linePath,
  panel,
  stepPath,
  svgElement,
  type Point,
} from '@tandem/svg-plot';
import {
  resourceKey,
  type Resource,
  type ResourceLine,
} from './history-values.js';

export interface HistoryPoint {
  readonly timeMs: number;
  readonly values: Readonly<Record<string, number>>;
}

interface Line {
  readonly key: string;
  readonly label: string;
  readonly color: string;
  readonly dashed?: boolean;
  /**
   * Left out of the axis' range: the VPA's upper bound starts out hundreds of times the
   * usage and would flatten every other line; it is drawn, cut at the panel's top.
   */
  readonly offScale?: boolean;
  /** Drawn as a step line: a value that holds until the next sample (a request, a bound). */
  readonly steps?: boolean;
}

const WIDTH = 720;
const HEIGHT = 260;
const FRAME = { left: 80, top: 30, width: 610, height: 160 };

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/** The HPA's replicas against what a native HPA would run, over time. */
export function replicasPlot(points: readonly HistoryPoint[]): string {
  return plot(
    'replicas',
    'Replicas: this HPA against a native one with the same target',
    'replicas',
    (value) => String(value),
    points,
    [
      {
        key: 'replicas',
        label: 'running (this HPA)',
        color: '#1f5fa8',
        steps: true,
      },
      {
        key: 'native',
        label: 'a native HPA would run',
        color: '#c0392b',
        dashed: true,
      },
    ],
  );
}

const RESOURCE_COLORS: Readonly<
  Record<ResourceLine, [string, string, boolean]>
> = {
  declared: ['declared', '#7f8c8d', true],
  request: ['request now', '#1f5fa8', false],
  target: ['VPA target', '#27864a', false],
  lower: ['VPA lower bound', '#8fc9a3', true],
  upper: ['VPA upper bound', '#8fc9a3', true],
  usage: ['usage', '#c0392b', false],
};

/** One container's usage against its declared request, request now and VPA bounds. */
export function resourcePlot(
  points: readonly HistoryPoint[],
  container: string,
  resource: Resource,
): string {
  const lines = (Object.keys(RESOURCE_COLORS) as ResourceLine[]).map((line) =>
    resourceKey(container, resource, line),
  );
  // Memory is drawn in whole binary units, so its ticks are round numbers of Mi or Gi.
  const largest = Math.max(
    0,
    ...points.flatMap((point) =>
      lines.flatMap((key) => point.values[key] ?? []),
    ),
  );
  const unit =
    resource === 'cpu'
      ? {
          divisor: 1,
          format: (value: number) => formatCpuMillicores(Math.round(value)),
        }
      : largest >= 2 * 2 ** 30
        ? { divisor: 2 ** 30, format: (value: number) => `${value}Gi` }
        : { divisor: 2 ** 20, format: (value: number) => `${value}Mi` };
  return plot(
    `${container}-${resource}`,
    `${container}: ${resource === 'cpu' ? 'CPU' : 'memory'}`,
    resource === 'cpu' ? 'CPU' : 'memory',
    unit.format,
    unit.divisor === 1
      ? points
      : points.map((point) => ({
          timeMs: point.timeMs,
          values: Object.fromEntries(
            Object.entries(point.values).map(([key, value]) => [
              key,
              value / unit.divisor,
            ]),
          ),
        })),
    (Object.keys(RESOURCE_COLORS) as ResourceLine[]).map((line) => {
      const [label, color, dashed] = RESOURCE_COLORS[line];
      return {
        key: resourceKey(container, resource, line),
        label,
        color,
        dashed,
      };
    }),
  );
}

function plot(
  id: string,
  title: string,
  yLabel: string,
  format: (value: number) => string,
  points: readonly HistoryPoint[],
  lines: readonly Line[],
): string {
  const drawn = lines.filter((line) =>
    points.some((point) => point.values[line.key] !== undefined),
  );
  const times = points.map((point) => point.timeMs);
  const valuesOf = (selected: readonly Line[]) =>
    selected.flatMap((line) =>
      points.flatMap((point) => point.values[line.key] ?? []),
    );
  const onScale = valuesOf(drawn.filter((line) => !line.offScale));
  const values = onScale.length > 0 ? onScale : valuesOf(drawn);
  const first = Math.min(...times);
  const last = Math.max(...times);
  const timeAxis = linearAxis(
    Number.isFinite(first) ? first : 0,
    Number.isFinite(last) && last > first ? last : first + 60_000,
    'time (UTC)',
    clock,
  );
  const valueAxis = linearAxis(
    0,
    Math.max(1, ...values) * 1.25,
    yLabel,
    format,
  );
  const area = panel(
    `plot-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`,
    FRAME,
    title,
    timeAxis,
    valueAxis,
  );
  const marks = drawn.map((line) => {
    const at = points.flatMap((point): Point[] => {
      const value = point.values[line.key];
      return value === undefined
        ? []
        : [{ x: area.x(point.timeMs), y: area.y(value) }];
    });
    return element('path', {
      // A step line writes only the changes: a request that holds for a day is one segment.
      d: line.steps ? stepPath(at, at[at.length - 1]?.x ?? 0) : linePath(at),
      fill: 'none',
      stroke: line.color,
      'stroke-width': 2,
      ...(line.dashed ? { 'stroke-dasharray': '6 4' } : {}),
    });
  });
  const key = legend(
    FRAME.left,
    HEIGHT - 30,
    FRAME.width,
    drawn.map((line) => ({
      label: line.label,
      swatch: element('line', {
        x1: 0,
        x2: 24,
        y1: 6,
        y2: 6,
        stroke: line.color,
        'stroke-width': 2,
        ...(line.dashed ? { 'stroke-dasharray': '6 4' } : {}),
      }),
    })),
  );
  const summary =
    drawn.length === 0
      ? `${title}: no samples yet`
      : `${title}, ${points.length} samples: ${drawn.map((line) => line.label).join(', ')}`;
  return svgElement(
    WIDTH,
    HEIGHT,
    [area.decoration, area.clipped(marks), key],
    {
      role: 'img',
      'aria-label': summary,
    },
  );
}
