import type { AggregationConfig, RecommenderConfig } from '@tandem/estimators';
import {
  containerStrategy,
  DEFAULT_STRATEGY,
  liveStrategyState,
  TANDEM_PREFIX,
  vpaStrategy,
  type LiveStrategyState,
  type ParameterValue,
  type Strategy,
} from '@tandem/strategies';
import {
  getContainerPolicy,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';

/** The recommender's flags as they bear on strategies. */
export interface StrategySettings {
  /** `--default-strategy`: a registry name (the flag parser checked it). */
  readonly defaultStrategy: string;
  /**
   * The upstream flags that stand for strategy parameters (`margin`, the target
   * percentiles, the OOM bump-up): what a VPA that does not annotate them gets.
   */
  readonly fallbacks: Readonly<Record<string, ParameterValue>>;
  /** `--feature-gates=PerVPAConfig=true`: upstream's per-container OOM fields count. */
  readonly perVpaConfig: boolean;
}

export const DEFAULT_STRATEGY_SETTINGS: StrategySettings = {
  defaultStrategy: DEFAULT_STRATEGY,
  fallbacks: {},
  perVpaConfig: false,
};

/** A VPA's strategy as the model runs it, and the state that strategy keeps per container. */
export interface VpaStrategyState {
  readonly strategy: Strategy;
  /**
   * Why the VPA's annotations could not be used (it got in before the webhook, or past a
   * webhook that was down): it then runs the default strategy, and the cycle reports this.
   */
  readonly problem: string | undefined;
  /** Per container name: the state of strategies that keep more than upstream's aggregate. */
  readonly live: Map<string, ContainerLiveState>;
  /** The VPA's `tandem.dev/` annotations this was read from, to skip unchanged ones. */
  readonly annotationsText: string;
}

export interface ContainerLiveState {
  readonly strategy: Strategy;
  state: LiveStrategyState;
}

/**
 * The strategy `object` names, or the default with the reason when its annotations do not
 * read. The state of `previous` is kept while the strategy and its parameters stay.
 *
 * Called for every VPA every cycle: unchanged annotations give `previous` back whole, and
 * equal strategies are one object (`interned`), so what is cached per strategy (the
 * recommender config with its knobs, and through it the estimator chains) is built once
 * for all the VPAs that share it, not once per VPA per cycle.
 */
export function vpaStrategyState(
  object: VerticalPodAutoscaler,
  settings: StrategySettings,
  previous: VpaStrategyState | undefined,
): VpaStrategyState {
  const annotations = object.metadata?.annotations;
  const annotationsText = tandemAnnotationsText(annotations);
  if (previous?.annotationsText === annotationsText) return previous;
  const chosen = chosenStrategy(annotations, annotationsText, settings);
  const same = previous !== undefined && previous.strategy === chosen.strategy;
  return {
    ...chosen,
    live: same ? previous.live : new Map(),
    annotationsText,
  };
}

interface ChosenStrategy {
  readonly strategy: Strategy;
  readonly problem: string | undefined;
}

/**
 * What each `tandem.dev/` annotation text reads as under each settings object: a VPA's
 * strategy depends on nothing else, so the VPAs of a first cycle (10,000 of them in the
 * recommender-cycle bench, nearly all without annotations) configure a strategy once per
 * distinct text instead of once each. As many entries as `strategies` below.
 */
const chosenBySettings = new WeakMap<
  StrategySettings,
  Map<string, ChosenStrategy>
>();

function chosenStrategy(
  annotations: Readonly<Record<string, string>> | undefined,
  annotationsText: string,
  settings: StrategySettings,
): ChosenStrategy {
  let chosen = chosenBySettings.get(settings);
  if (chosen === undefined) {
    chosen = new Map();
    chosenBySettings.set(settings, chosen);
  }
  const known = chosen.get(annotationsText);
  if (known !== undefined) return known;
  const read = vpaStrategy(
    annotations,
    settings.defaultStrategy,
    settings.fallbacks,
  );
  const fresh: ChosenStrategy =
    'strategy' in read
      ? { strategy: interned(read.strategy), problem: undefined }
      : {
          strategy: interned(defaultStrategy(settings)),
          problem: read.error,
        };
  chosen.set(annotationsText, fresh);
  return fresh;
}

/**
 * The `tandem.dev/` annotations, as one comparable text: equal texts, equal annotations.
 * A key holds no `"` (the API server refuses one), so a value quoted as JSON ends each.
 */
function tandemAnnotationsText(
  annotations: Readonly<Record<string, string>> | undefined,
): string {
  let text = '';
  for (const key in annotations)
    if (key.startsWith(TANDEM_PREFIX))
      text += `${key}${JSON.stringify(annotations[key])}`;
  return text;
}

/**
 * One object per strategy and parameters. The recommender's flags are fixed for the
 * process, so the distinct strategies are as many as the distinct annotation sets seen.
 */
const strategies = new Map<string, Strategy>();

function interned(strategy: Strategy): Strategy {
  const key = `${strategy.name}\u0000${JSON.stringify(strategy.parameters)}`;
  const known = strategies.get(key);
  if (known !== undefined) return known;
  strategies.set(key, strategy);
  return strategy;
}

function defaultStrategy(settings: StrategySettings): Strategy {
  const read = vpaStrategy(
    undefined,
    settings.defaultStrategy,
    settings.fallbacks,
  );
  // Flags the registry refuses leave only the registry's default with its own fallbacks.
  if ('strategy' in read) return read.strategy;
  const bare = vpaStrategy(undefined, DEFAULT_STRATEGY);
  if ('error' in bare) throw new Error(bare.error);
  return bare.strategy;
}

export function sameStrategy(a: Strategy, b: Strategy): boolean {
  return (
    a.name === b.name &&
    JSON.stringify(a.parameters) === JSON.stringify(b.parameters)
  );
}

/** The strategy of one container of the VPA: upstream's per-container fields may win. */
export function strategyOfContainer(
  object: VerticalPodAutoscaler,
  state: VpaStrategyState,
  containerName: string,
  settings: StrategySettings,
): Strategy {
  return containerStrategy(
    state.strategy,
    getContainerPolicy(object, containerName),
    settings.perVpaConfig,
  );
}

/**
 * The container's own state under a strategy that keeps one, made on first use; undefined
 * for strategies that read upstream's aggregate only.
 */
export function liveStateOf(
  object: VerticalPodAutoscaler,
  state: VpaStrategyState,
  containerName: string,
  settings: StrategySettings,
): ContainerLiveState | undefined {
  const strategy = strategyOfContainer(object, state, containerName, settings);
  const kept = state.live.get(containerName);
  if (kept !== undefined && sameStrategy(kept.strategy, strategy)) return kept;
  const fresh = liveStrategyState(strategy);
  if (fresh === undefined) return undefined;
  const live = { strategy, state: fresh };
  state.live.set(containerName, live);
  return live;
}

/**
 * The settings from the recommender's flags: upstream's estimator flags become the
 * fallbacks of the parameters that stand for them, so a VPA without annotations gets
 * exactly what upstream's recommender with those flags gives.
 */
export function strategySettings(
  defaultStrategy: string,
  recommender: RecommenderConfig,
  aggregation: AggregationConfig,
  perVpaConfig: boolean,
): StrategySettings {
  return {
    defaultStrategy,
    fallbacks: {
      'target-cpu-percentile': recommender.targetCpuPercentile,
      'target-memory-percentile': recommender.targetMemoryPercentile,
      margin: recommender.recommendationMarginFraction,
      'oom-bump-up-ratio': aggregation.oomBumpUpRatio,
      'oom-min-bump-up': aggregation.oomMinBumpUpBytes,
    },
    perVpaConfig,
  };
}
