import { warmupFor, type SeriesSamples } from '@tandem/replay';
import type {
  ChosenSeries,
  RequestTrace,
  TimedValue,
} from './replay-plot-trace.js';
import { strategyLabel } from './replay-plot-sweep.js';
import {
  lineSwatch,
  PAGE,
  strategyColour,
  strategyStroke,
} from './replay-plot-style.js';
import {
  element,
  px,
  stepPath,
  text,
  legend,
  linearAxis,
  panel,
  type Axis,
  type Panel,
} from '@tandem/svg-plot';

const DAY_MS = 86_400_000;
const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
const PANEL_HEIGHT = 300;
const PANEL_STRIDE = PANEL_HEIGHT + 90;
const USAGE_FILL = '#c4c4c4';
const WARMUP_FILL = '#f4f4f4';
/** A request above this many times the usage peak is cut off rather than flatten the usage. */
const MOST_OVER_PEAK = 3;

interface SeriesLines {
  readonly usage: readonly TimedValue[];
  readonly requests: readonly (readonly TimedValue[])[];
}

/**
 * Memory, then CPU, of one series over time: usage shaded, each strategy's request a step
 * line, memory's OOM kills ticked along its top, the warm-up greyed, under a legend.
 */
export function seriesSection(
  chosen: ChosenSeries,
  samples: SeriesSamples,
  usage: { cpuMillicores: TimedValue[]; memoryBytes: TimedValue[] },
  traces: readonly RequestTrace[],
  top: number,
): { markup: string; bottom: number } {
  const firstMs = samples.timesMs[0] ?? 0;
  const lastMs = samples.timesMs[samples.timesMs.length - 1] ?? firstMs;
  const days = (timeMs: number) => (timeMs - firstMs) / DAY_MS;
  const xAxis = linearAxis(
    0,
    days(lastMs),
    'days since the series’ first sample (warm-up shaded)',
    String,
  );
  const span = {
    endDay: days(lastMs),
    warmupDays: days(firstMs + (warmupFor(lastMs - firstMs) ?? 0)),
  };
  const memory = seriesPanel(
    'memory-series',
    top + 40,
    'Memory: usage and requests',
    xAxis,
    days,
    { usage: usage.memoryBytes, requests: traces.map((t) => t.memoryBytes) },
    memoryScale,
    span,
  );
  const cpu = seriesPanel(
    'cpu-series',
    top + 40 + PANEL_STRIDE,
    'CPU: usage and requests',
    xAxis,
    days,
    {
      usage: usage.cpuMillicores,
      requests: traces.map((t) => t.cpuMillicores),
    },
    () => ({ divisor: 1000, label: 'CPU (cores)' }),
    span,
  );
  const legendTop = top + 40 + 2 * PANEL_STRIDE - 25;
  const markup = [
    text(PAGE.left, top, `Series ${chosen.seriesId}: ${chosen.reason}`, {
      'font-size': 16,
      'font-weight': 'bold',
    }),
    memory.markup,
    oomTicks(memory.panel, traces, days),
    cpu.markup,
    legend(PAGE.left, legendTop, PAGE.right - PAGE.left, [
      {
        swatch: element('rect', { width: 24, height: 12, fill: USAGE_FILL }),
        label: 'usage (largest in each drawn step)',
      },
      ...traces.map((trace, i) => ({
        swatch: lineSwatch(i),
        label: `${strategyLabel(trace.strategy)} request`,
      })),
      {
        swatch: element('path', {
          d: 'M12 1v10',
          stroke: '#333',
          'stroke-width': 1.5,
        }),
        label: 'OOM kill (one row a strategy)',
      },
    ]),
  ].join('\n');
  return { markup, bottom: legendTop + 30 };
}

/** A y axis unit: values are divided by `divisor` and the axis says which unit. */
interface Unit {
  readonly divisor: number;
  readonly label: string;
}

function memoryScale(peakBytes: number): Unit {
  return peakBytes >= GIB
    ? { divisor: GIB, label: 'memory (GiB)' }
    : { divisor: MIB, label: 'memory (MiB)' };
}

function seriesPanel(
  id: string,
  top: number,
  title: string,
  xAxis: Axis,
  days: (timeMs: number) => number,
  lines: SeriesLines,
  unitFor: (peak: number) => Unit,
  span: { endDay: number; warmupDays: number },
): { panel: Panel; markup: string } {
  const usagePeak = Math.max(0, ...lines.usage.map((p) => p.value));
  const requestPeak = Math.max(
    0,
    ...lines.requests.flatMap((line) => line.map((p) => p.value)),
  );
  const ceiling =
    usagePeak > 0
      ? Math.min(Math.max(usagePeak, requestPeak), MOST_OVER_PEAK * usagePeak)
      : requestPeak;
  const unit = unitFor(ceiling);
  const drawn = panel(
    id,
    {
      left: PAGE.left,
      top,
      width: PAGE.right - PAGE.left,
      height: PANEL_HEIGHT,
    },
    ceiling < requestPeak
      ? `${title} (requests above ${MOST_OVER_PEAK}× the usage peak cut off)`
      : title,
    xAxis,
    linearAxis(0, ceiling / unit.divisor || 1, unit.label, String),
  );
  const placed = (line: readonly TimedValue[]) =>
    line.map((p) => ({
      x: drawn.x(days(p.timeMs)),
      y: drawn.y(p.value / unit.divisor),
    }));
  const endX = drawn.x(span.endDay);
  const bottom = drawn.y(0);
  const usagePath = stepPath(placed(lines.usage), endX);
  const markup = [
    element('rect', {
      x: drawn.x(0),
      y: top,
      width: drawn.x(span.warmupDays) - drawn.x(0),
      height: PANEL_HEIGHT,
      fill: WARMUP_FILL,
    }),
    drawn.decoration,
    drawn.clipped([
      usagePath === ''
        ? ''
        : element('path', {
            d: `${usagePath}V${px(bottom)}H${px(drawn.x(0))}Z`,
            fill: USAGE_FILL,
          }),
      ...lines.requests.map((line, i) =>
        element('path', {
          d: stepPath(placed(line), endX),
          fill: 'none',
          ...strategyStroke(i),
          'stroke-width': 1.8,
        }),
      ),
    ]),
  ].join('\n');
  return { panel: drawn, markup };
}

/** One row of ticks a strategy along the panel's top, one tick a pixel at most. */
function oomTicks(
  drawn: Panel,
  traces: readonly RequestTrace[],
  days: (timeMs: number) => number,
): string {
  return traces
    .map((trace, i) => {
      const xs = new Set(
        trace.oomTimesMs.map((timeMs) => px(Math.round(drawn.x(days(timeMs))))),
      );
      if (xs.size === 0) return '';
      const y = px(drawn.frame.top + 3 + i * 7);
      return element('path', {
        d: [...xs].map((x) => `M${x} ${y}v5`).join(''),
        stroke: strategyColour(i),
        'stroke-width': 1.5,
      });
    })
    .join('');
}
