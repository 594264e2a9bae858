import { element, px, text } from './svg.js';

export interface Tick {
  readonly value: number;
  readonly text: string;
}

/** One axis of a panel: where a value falls, and the ticks to write along it. */
export interface Axis {
  /** 0 at the axis' start, 1 at its end. */
  readonly fraction: (value: number) => number;
  readonly ticks: readonly Tick[];
  readonly label: string;
}

/**
 * Round numbers from at most `min` to at least `max`, about `target` steps apart, each step
 * 1, 2 or 5 times a power of ten.
 */
export function niceTicks(min: number, max: number, target = 5): number[] {
  if (!(max > min)) return [min];
  const rough = (max - min) / target;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
  if (step === undefined) return [min, max];
  const first = Math.floor(min / step);
  const last = Math.ceil(max / step);
  // toPrecision drops what adding binary fractions leaves (0.30000000000000004).
  return Array.from({ length: last - first + 1 }, (_, i) =>
    Number(((first + i) * step).toPrecision(12)),
  );
}

/** A linear axis over [min, max] widened to round ticks at both ends. */
export function linearAxis(
  min: number,
  max: number,
  label: string,
  format: (value: number) => string,
): Axis {
  const values = niceTicks(min, max);
  const start = values[0] ?? min;
  const end = values[values.length - 1] ?? max;
  const span = end - start || 1;
  return {
    fraction: (value) => (value - start) / span,
    ticks: values.map((value) => ({ value, text: format(value) })),
    label,
  };
}

/**
 * Counts from 0 over decades (log of 1 + count): a handful of OOM kills and thousands of
 * them both stay readable on one axis.
 */
export function countAxis(max: number, label: string): Axis {
  const decades = Math.max(Math.ceil(Math.log10(Math.max(max, 1))), 1);
  const end = Math.log10(1 + 10 ** decades);
  return {
    fraction: (value) => Math.log10(1 + Math.max(value, 0)) / end,
    ticks: [0, ...Array.from({ length: decades + 1 }, (_, i) => 10 ** i)].map(
      (value) => ({ value, text: String(value) }),
    ),
    label,
  };
}

export interface Frame {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** A plotting area with its axes, ready to take marks in data coordinates. */
export interface Panel {
  readonly frame: Frame;
  x(value: number): number;
  y(value: number): number;
  /** Background, grid, ticks, axis labels and title. */
  readonly decoration: string;
  /** `marks` cut to the plotting area. */
  clipped(marks: readonly string[]): string;
}

const GRID = '#e3e3e3';
const INK = '#333';

/** A panel in `frame`; `id` names its clip path, so it must be unique in the document. */
export function panel(
  id: string,
  frame: Frame,
  title: string,
  xAxis: Axis,
  yAxis: Axis,
): Panel {
  const { left, top, width, height } = frame;
  const bottom = top + height;
  const x = (value: number) => left + xAxis.fraction(value) * width;
  const y = (value: number) => bottom - yAxis.fraction(value) * height;
  const xTicks = xAxis.ticks.flatMap((tick) => [
    element('line', {
      x1: x(tick.value),
      x2: x(tick.value),
      y1: top,
      y2: bottom + 4,
      stroke: GRID,
    }),
    text(x(tick.value), bottom + 17, tick.text, { 'text-anchor': 'middle' }),
  ]);
  const yTicks = yAxis.ticks.flatMap((tick) => [
    element('line', {
      x1: left - 4,
      x2: left + width,
      y1: y(tick.value),
      y2: y(tick.value),
      stroke: GRID,
    }),
    text(left - 7, y(tick.value) + 4, tick.text, { 'text-anchor': 'end' }),
  ]);
  const decoration = [
    ...xTicks,
    ...yTicks,
    element('rect', { ...frameRect(frame), fill: 'none', stroke: INK }),
    text(left + width / 2, bottom + 36, xAxis.label, {
      'text-anchor': 'middle',
    }),
    text(0, 0, yAxis.label, {
      'text-anchor': 'middle',
      transform: `translate(${px(left - 52)} ${px(top + height / 2)}) rotate(-90)`,
    }),
    text(left, top - 10, title, { 'font-size': 14, 'font-weight': 'bold' }),
  ].join('\n');
  return {
    frame,
    x,
    y,
    decoration,
    clipped: (marks) =>
      [
        element('clipPath', { id }, element('rect', frameRect(frame))),
        element('g', { 'clip-path': `url(#${id})` }, marks.join('\n')),
      ].join('\n'),
  };
}

function frameRect({ left, top, width, height }: Frame) {
  return { x: left, y: top, width, height };
}
