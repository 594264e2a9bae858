export {
  APPLY_MODES,
  relativeChange,
  shouldApply,
  type ApplyMode,
  type PodState,
} from './apply-rule.js';
export { DeclaredCursor, type DeclaredSizes } from './declared-sizes.js';
export {
  fleetReport,
  nearestRank,
  type FleetTotals,
  type SeriesFigures,
  type StrategyReport,
} from './fleet-report.js';
export { replayFleet, type Fleet } from './replay-fleet.js';
export {
  replaySeries,
  SHORT_WARMUP_MS,
  WARMUP_MS,
  warmupFor,
  type SeriesSamples,
} from './replay-series.js';
export type { SeriesScore } from './series-score.js';
export { MissingDeclaredSizeError, staticBaseline } from './static-baseline.js';
