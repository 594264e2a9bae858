import { MARGIN_PARAMETER } from './common-parameters.js';
import type { StrategyDefinition } from './definition.js';
import { numberParameter } from './parameters.js';
import { upstream, upstreamStrategy } from './upstream.js';

/**
 * The strategy this project recommends, designed from what `tandem replay` shows
 * (docs/replay.md): upstream's model and knobs with two departures.
 * - A memory window whose first sample reads 0 bytes keeps its real peak. Upstream's quirk
 *   (`addMemorySample` in `pkg/recommender/model/container.go`) causes three OOM kills in
 *   four on the Bitbrains trace, where active memory reads 0 in 6 % of samples.
 * - CPU has no margin (`cpu-margin`, 0 by default; `margin` applies to memory only). The
 *   CPU target is already the 90th percentile of a decaying history, and CPU past a
 *   request is slowed, not killed: the 15 % on top costs 21 % of the CPU slack on the
 *   Bitbrains trace and 32 % on Google's, and buys little: without it the CPU wanted past
 *   the request goes from 3.5 % to 4.5 % of the usage (Bitbrains, evict), 0.5 % to 1.9 %
 *   (Google). `cpu-margin=0.15` gives upstream's CPU back.
 */
export const tandem: StrategyDefinition = {
  name: 'tandem',
  summary:
    "upstream's numbers without its zero-peak quirk, and no margin on CPU (margin: memory's)",
  parameters: {
    ...upstream.parameters,
    margin: {
      ...MARGIN_PARAMETER,
      summary: "memory's margin (0.15 = 15 %)",
    },
    'cpu-margin': {
      ...MARGIN_PARAMETER,
      fallback: 0,
      summary: "CPU's margin (0 = none)",
    },
  },
  create: (values) =>
    upstreamStrategy('tandem', values, {
      zeroPeakIgnoresWindow: false,
      cpuMarginFraction: numberParameter(values, 'cpu-margin'),
    }),
};
