import {
  CheckpointError,
  describeJsonValue,
  isJsonObject,
} from '@tandem/histogram';
import { HistoryClock } from './history-clock.js';
import { holdWithinBand } from './hold.js';
import { numberParameter, type ParameterValues } from './parameters.js';
import type { StrategyRecommendation } from './strategy.js';

/**
 * What the live recommender keeps per container for `tandem`, beyond upstream's aggregate:
 * the clock that aggregate ages by, and the recommendation last given (for the hold band).
 * The cluster model files every sample at the clock's time, so the aggregate (and its
 * checkpoint) lives in history time; garbage collection reads the clock to compare.
 */
export class TandemLiveState {
  readonly clock: HistoryClock;
  private readonly holdBand: number;
  private held: StrategyRecommendation | undefined;

  constructor(values: ParameterValues, saved?: TandemSaved) {
    this.clock = new HistoryClock(
      numberParameter(values, 'longest-gap'),
      saved?.clock,
    );
    this.holdBand = numberParameter(values, 'hold-band');
    this.held = saved?.held;
  }

  /** A sample or an OOM kill at `realMs`: the clock moves on (once, however often told). */
  heard(realMs: number): void {
    this.clock.sample(realMs);
  }

  get empty(): boolean {
    return !this.clock.started;
  }

  /** `fromHistory` (upstream's recommendation from the aggregate) through the hold band. */
  recommend(fromHistory: StrategyRecommendation): StrategyRecommendation {
    this.held = holdWithinBand(this.held, fromHistory, this.holdBand);
    return this.held;
  }

  save(): TandemSaved {
    return { clock: this.clock.save(), held: this.held };
  }

  /** The state `save` gave, or a CheckpointError naming the field that does not read. */
  static restore(values: ParameterValues, saved: unknown): TandemLiveState {
    if (!isJsonObject(saved))
      throw new CheckpointError('', 'tandem state is not an object');
    return new TandemLiveState(values, {
      clock: readClock(saved['clock']),
      held: readHeld(saved['held']),
    });
  }
}

export interface TandemSaved {
  readonly clock: { readonly skippedMs: number; readonly lastRealMs?: number };
  readonly held: StrategyRecommendation | undefined;
}

function readClock(value: unknown): TandemSaved['clock'] {
  if (!isJsonObject(value))
    throw new CheckpointError(
      'clock',
      `must be an object, got ${describeJsonValue(value)}`,
    );
  const skippedMs = wholeNumber(value['skippedMs'], 'clock.skippedMs');
  const last = value['lastRealMs'];
  return last === undefined
    ? { skippedMs }
    : { skippedMs, lastRealMs: wholeNumber(last, 'clock.lastRealMs') };
}

function readHeld(value: unknown): StrategyRecommendation | undefined {
  if (value === undefined) return undefined;
  if (!isJsonObject(value))
    throw new CheckpointError(
      'held',
      `must be an object, got ${describeJsonValue(value)}`,
    );
  const amounts = (name: 'target' | 'lowerBound' | 'upperBound') => {
    const field = value[name];
    if (!isJsonObject(field))
      throw new CheckpointError(
        `held.${name}`,
        `must be an object, got ${describeJsonValue(field)}`,
      );
    return {
      cpu: wholeNumber(field['cpu'], `held.${name}.cpu`),
      memory: wholeNumber(field['memory'], `held.${name}.memory`),
    };
  };
  return {
    target: amounts('target'),
    lowerBound: amounts('lowerBound'),
    upperBound: amounts('upperBound'),
  };
}

function wholeNumber(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new CheckpointError(
      field,
      `must be a whole number >= 0, got ${describeJsonValue(value)}`,
    );
  return value;
}
