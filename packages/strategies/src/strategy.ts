import type { ResourceAmounts } from '@tandem/estimators';

/** What a strategy recommends for one container, in millicores and bytes. */
export interface StrategyRecommendation {
  readonly target: ResourceAmounts;
  readonly lowerBound: ResourceAmounts;
  readonly upperBound: ResourceAmounts;
}

/**
 * One container's usage history as a strategy keeps it. Times are Unix milliseconds and
 * only move forward; usage is whole millicores and bytes.
 */
export interface UsageModel {
  /** One metrics snapshot of the container. */
  addUsage(timeMs: number, cpuMillicores: number, memoryBytes: number): void;
  /** The container was OOM-killed while it requested `requestedMemoryBytes`. */
  recordOom(timeMs: number, requestedMemoryBytes: number): void;
  /**
   * The recommendation as of `timeMs`. `declared` is what the pod template asks for, when
   * known: strategies that cap at it or start from it read it; the others ignore it.
   */
  recommend(
    timeMs: number,
    declared: ResourceAmounts | undefined,
  ): StrategyRecommendation;
}

/** A recommendation rule with its parameters set: a factory of per-container models. */
export interface Strategy {
  readonly name: string;
  /** The parameters in force, every one of them, by their annotation names. */
  readonly parameters: Readonly<Record<string, ParameterValue>>;
  model(startMs: number): UsageModel;
}

export type ParameterValue = number | boolean;
