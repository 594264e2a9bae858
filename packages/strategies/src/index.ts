export { autopilot } from './autopilot.js';
export { CONTAINER_MINIMUM, withUpdateBand } from './band.js';
export { DecayedMax } from './decayed-max.js';
export { HistoryClock, type HistoryClockState } from './history-clock.js';
export { holdWithinBand } from './hold.js';
export { configureStrategy, type StrategyDefinition } from './definition.js';
export {
  parameterText,
  readParameters,
  type ParameterSpec,
  type ParameterSpecs,
  type ParameterValues,
} from './parameters.js';
export {
  DEFAULT_STRATEGY,
  STRATEGIES,
  strategyDefinition,
} from './registry.js';
export type {
  ParameterValue,
  Strategy,
  StrategyRecommendation,
  UsageModel,
} from './strategy.js';
export { tandem } from './tandem.js';
export {
  upstream,
  upstreamConfigs,
  recommendContainers,
  UpstreamModel,
  upstreamStrategy,
  type UpstreamModelOptions,
} from './upstream.js';
export { vivo, vivoRecommendation } from './vivo.js';
export {
  decodeStrategyState,
  encodeStrategyState,
  liveStrategyState,
  STRATEGY_STATE_ANNOTATION,
  type LiveStrategyState,
} from './live-state.js';
export {
  containerStrategy,
  STRATEGY_ANNOTATION,
  TANDEM_PREFIX,
  vpaStrategy,
  type StrategyAnnotationError,
} from './vpa-strategy.js';
