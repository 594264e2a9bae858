import type { ResourceAmounts } from '@tandem/estimators';
import { CheckpointError } from '@tandem/histogram';
import { AutopilotModel } from './autopilot.js';
import type { HistoryClock } from './history-clock.js';
import { TandemLiveState } from './tandem-live-state.js';
import type {
  ParameterValue,
  Strategy,
  StrategyRecommendation,
} from './strategy.js';

/**
 * The checkpoint annotation holding a strategy's own state. Upstream's recommender reads
 * only a checkpoint's `spec` and `status` (`pkg/recommender/input/cluster_feeder.go`,
 * `setVpaCheckpoint`), so the state rides beside the histograms without changing them.
 */
export const STRATEGY_STATE_ANNOTATION = 'tandem.dev/strategy-state';

/** Bumped when the JSON below changes shape; another version is ignored, never misread. */
export const STRATEGY_STATE_VERSION = 1;

/**
 * What a strategy keeps per container beyond upstream's aggregate, in the live
 * recommender. Samples arrive one resource at a time there.
 */
export interface LiveStrategyState {
  addCpu(timeMs: number, cpuMillicores: number): void;
  addMemory(timeMs: number, memoryBytes: number): void;
  recordOom(timeMs: number, requestedMemoryBytes: number): void;
  /** Whether any sample arrived: an empty state has nothing to recommend from. */
  readonly empty: boolean;
  /**
   * The clock the container's upstream aggregate ages by, for strategies whose history
   * waits out gaps (tandem): the cluster model files samples at its time.
   */
  readonly clock?: HistoryClock;
  /**
   * The recommendation at `timeMs`. `fromHistory` is upstream's recommendation from the
   * container's aggregate, for strategies that shape it (tandem); strategies with a model
   * of their own (autopilot) ignore it.
   */
  recommend(
    timeMs: number,
    declared: ResourceAmounts | undefined,
    fromHistory?: StrategyRecommendation,
  ): StrategyRecommendation;
  save(): unknown;
}

/** A fresh state for `strategy`, or undefined when it reads upstream's aggregate only. */
export function liveStrategyState(
  strategy: Strategy,
): LiveStrategyState | undefined {
  if (strategy.name === 'autopilot')
    return autopilotState(new AutopilotModel(strategy.parameters));
  if (strategy.name === 'tandem')
    return tandemState(new TandemLiveState(strategy.parameters));
  return undefined;
}

/** Strategies whose state `decodeStrategyState` restores, by name. */
const RESTORERS: Readonly<
  Record<string, (strategy: Strategy, saved: unknown) => LiveStrategyState>
> = {
  // Saved state came from samples, so a restored one is never empty.
  autopilot: (strategy, saved) =>
    autopilotState(AutopilotModel.restore(strategy.parameters, saved), false),
  tandem: (strategy, saved) =>
    tandemState(TandemLiveState.restore(strategy.parameters, saved)),
};

function tandemState(state: TandemLiveState): LiveStrategyState {
  return {
    addCpu: (timeMs) => state.heard(timeMs),
    addMemory: (timeMs) => state.heard(timeMs),
    recordOom: (timeMs) => state.heard(timeMs),
    get empty() {
      return state.empty;
    },
    clock: state.clock,
    recommend: (timeMs, _declared, fromHistory) => {
      if (fromHistory === undefined)
        throw new Error(
          `tandem's live state was asked at ${timeMs} ms for a recommendation without upstream's from the aggregate`,
        );
      return state.recommend(fromHistory);
    },
    save: () => state.save(),
  };
}

function autopilotState(
  model: AutopilotModel,
  startsEmpty = true,
): LiveStrategyState {
  let empty = startsEmpty;
  return {
    addCpu: (timeMs, cpuMillicores) => {
      empty = false;
      model.addCpu(timeMs, cpuMillicores);
    },
    addMemory: (timeMs, memoryBytes) => model.addMemory(timeMs, memoryBytes),
    recordOom: (timeMs, bytes) => model.recordOom(timeMs, bytes),
    get empty() {
      return empty;
    },
    recommend: (timeMs) => model.recommend(timeMs),
    save: () => model.save(),
  };
}

interface Envelope {
  readonly version: number;
  readonly strategy: string;
  readonly parameters: Readonly<Record<string, ParameterValue>>;
  readonly state: unknown;
}

/** The annotation text for `state` of a container under `strategy`. */
export function encodeStrategyState(
  strategy: Strategy,
  state: LiveStrategyState,
): string {
  const envelope: Envelope = {
    version: STRATEGY_STATE_VERSION,
    strategy: strategy.name,
    parameters: strategy.parameters,
    state: state.save(),
  };
  return JSON.stringify(envelope);
}

/**
 * The state an annotation holds for `strategy`: `{stale}` when it was written for another
 * strategy, other parameters or another version (the state starts afresh, as a new VPA's
 * does), a CheckpointError naming the field when it is unreadable.
 */
export function decodeStrategyState(
  strategy: Strategy,
  text: string,
): { state: LiveStrategyState } | { stale: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError(
      STRATEGY_STATE_ANNOTATION,
      `not JSON (${(error as Error).message})`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new CheckpointError(STRATEGY_STATE_ANNOTATION, 'not a JSON object');
  const envelope = parsed as Partial<Envelope>;
  if (envelope.version !== STRATEGY_STATE_VERSION)
    return { stale: `version ${JSON.stringify(envelope.version)}` };
  const restore = Object.hasOwn(RESTORERS, strategy.name)
    ? RESTORERS[strategy.name]
    : undefined;
  if (envelope.strategy !== strategy.name || restore === undefined)
    return {
      stale: `written for strategy ${JSON.stringify(envelope.strategy)}`,
    };
  if (
    JSON.stringify(envelope.parameters) !== JSON.stringify(strategy.parameters)
  )
    return { stale: 'written with other parameters' };
  try {
    return { state: restore(strategy, envelope.state) };
  } catch (error) {
    throw error instanceof CheckpointError
      ? error.within(`${STRATEGY_STATE_ANNOTATION}.state`)
      : error;
  }
}
