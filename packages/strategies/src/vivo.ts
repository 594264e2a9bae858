import {
  DEFAULT_AGGREGATION_CONFIG,
  DEFAULT_RECOMMENDER_CONFIG,
  type ResourceAmounts,
} from '@tandem/estimators';
import { CONTAINER_MINIMUM, scaleAmounts } from './band.js';
import { halfLifeParameter } from './common-parameters.js';
import type { StrategyDefinition } from './definition.js';
import { numberParameter, type ParameterValues } from './parameters.js';
import type { StrategyRecommendation, UsageModel } from './strategy.js';
import { UpstreamModel } from './upstream.js';

/**
 * vivo's overcommit rules, on top of upstream's numbers: before a container has history
 * its declared request times a static coefficient; then upstream's recommendation times a
 * multiplier; never above what the user declared; memory left as declared unless enabled.
 */
export const vivo: StrategyDefinition = {
  name: 'vivo',
  summary:
    "vivo's overcommit rules: declared × 0.5 until a day of history, then upstream's capped at declared; memory as declared",
  parameters: {
    coefficient: {
      kind: 'number',
      fallback: 0.5,
      min: 0.01,
      max: 1,
      summary: 'share of the declared request recommended before any history',
    },
    multiplier: {
      kind: 'number',
      fallback: 1,
      min: 0.01,
      max: 10,
      summary: "factor on upstream's recommendation once history exists",
    },
    memory: {
      kind: 'boolean',
      fallback: false,
      summary: 'recommend memory too (otherwise it stays as declared)',
    },
    history: {
      ...halfLifeParameter(24, 'history'),
      summary: 'history needed before the coefficient gives way',
    },
  },
  create: (values) => ({
    name: 'vivo',
    parameters: values,
    model: (startMs) => new VivoModel(startMs, values),
  }),
};

class VivoModel implements UsageModel {
  private readonly upstream: UpstreamModel;
  private firstSampleMs: number | undefined;

  constructor(
    startMs: number,
    private readonly values: ParameterValues,
  ) {
    this.upstream = new UpstreamModel(
      startMs,
      DEFAULT_AGGREGATION_CONFIG,
      DEFAULT_RECOMMENDER_CONFIG,
    );
  }

  addUsage(timeMs: number, cpuMillicores: number, memoryBytes: number): void {
    this.firstSampleMs ??= timeMs;
    this.upstream.addUsage(timeMs, cpuMillicores, memoryBytes);
  }

  recordOom(timeMs: number, requestedMemoryBytes: number): void {
    this.upstream.recordOom(timeMs, requestedMemoryBytes);
  }

  recommend(
    timeMs: number,
    declared: ResourceAmounts | undefined,
  ): StrategyRecommendation {
    return vivoRecommendation(
      this.values,
      this.upstream.recommend(),
      declared,
      this.firstSampleMs === undefined ? 0 : timeMs - this.firstSampleMs,
    );
  }
}

/**
 * vivo's rules applied to upstream's recommendation `fromHistory` for a container that
 * declared `declared` and has `historyMs` of usage history: what the live recommender
 * computes from upstream's aggregate, and `tandem replay` from its own model.
 */
export function vivoRecommendation(
  values: ParameterValues,
  fromHistory: StrategyRecommendation,
  declared: ResourceAmounts | undefined,
  historyMs: number,
): StrategyRecommendation {
  if (declared === undefined) return fromHistory;
  const memory = values['memory'] === true;
  // Between the container minimum and the declared size; the declared size wins when it
  // is below the minimum, since vivo never recommends more than the user asked for.
  const bounded = (amounts: ResourceAmounts): ResourceAmounts => ({
    cpu: Math.min(Math.max(amounts.cpu, CONTAINER_MINIMUM.cpu), declared.cpu),
    memory: memory
      ? Math.min(
          Math.max(amounts.memory, CONTAINER_MINIMUM.memory),
          declared.memory,
        )
      : declared.memory,
  });
  if (historyMs < numberParameter(values, 'history')) {
    const amounts = bounded(
      scaleAmounts(declared, numberParameter(values, 'coefficient')),
    );
    return { target: amounts, lowerBound: amounts, upperBound: amounts };
  }
  const multiplier = numberParameter(values, 'multiplier');
  const shape = (amounts: ResourceAmounts) =>
    bounded(scaleAmounts(amounts, multiplier));
  return {
    target: shape(fromHistory.target),
    lowerBound: shape(fromHistory.lowerBound),
    upperBound: shape(fromHistory.upperBound),
  };
}
