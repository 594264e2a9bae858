import type { Fleet, StrategyReport } from '@tandem/replay';
import type { Command } from './args.js';
import { marginSweep } from './replay-plot-sweep.js';
import { sweepSection } from './replay-plot-sweep-panels.js';
import { PAGE } from './replay-plot-style.js';
import {
  chooseSeries,
  traceRequests,
  usageLines,
} from './replay-plot-trace.js';
import { seriesSection } from './replay-plot-trace-panels.js';
import { svgDocument, text } from '@tandem/svg-plot';

const HEADER_HEIGHT = 110;
const SECTION_GAP = 50;

/**
 * `tandem replay --plot`: an SVG page with slack against OOM kills over a margin sweep for
 * every strategy, then the series with the most OOM kills under upstream over time with
 * every strategy's requests. Replays under the first apply mode; the same input gives the
 * same bytes.
 */
export function replayPlot(
  fleet: Fleet,
  command: Extract<Command, { kind: 'replay' }>,
  reports: readonly StrategyReport[],
): string {
  const mode = command.apply[0] ?? 'evict';
  const sweep = sweepSection(
    marginSweep(fleet, command.strategies, mode),
    mode,
    HEADER_HEIGHT,
  );
  const chosen = chooseSeries(fleet, reports);
  const samples =
    chosen === undefined ? undefined : fleet.series.get(chosen.seriesId);
  const series =
    chosen === undefined || samples === undefined
      ? undefined
      : seriesSection(
          chosen,
          samples,
          usageLines(samples),
          command.strategies.map((strategy) =>
            traceRequests(samples, fleet, chosen.seriesId, strategy, mode),
          ),
          sweep.bottom + SECTION_GAP,
        );
  return svgDocument(PAGE.width, (series ?? sweep).bottom + 20, [
    text(PAGE.left, 40, 'tandem replay', {
      'font-size': 22,
      'font-weight': 'bold',
    }),
    text(
      PAGE.left,
      66,
      `${command.usageFile}: ${fleet.series.size} series, apply ${mode}`,
      { fill: '#555', 'font-size': 14 },
    ),
    sweep.markup,
    series?.markup ?? '',
  ]);
}
