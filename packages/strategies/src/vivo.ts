import {
  DEFAULT_AGGREGATION_CONFIG,
  DEFAULT_RECOMMENDER_CONFIG,
  type ResourceAmounts,
} from '@tandem/estimators';
import { scaleAmounts } from './band.js';
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
  private readonly coefficient: number;
  private readonly multiplier: number;
  private readonly memory: boolean;
  private readonly historyMs: number;
  private firstSampleMs: number | undefined;

  constructor(startMs: number, values: ParameterValues) {
    this.upstream = new UpstreamModel(
      startMs,
      DEFAULT_AGGREGATION_CONFIG,
      DEFAULT_RECOMMENDER_CONFIG,
    );
    this.coefficient = numberParameter(values, 'coefficient');
    this.multiplier = numberParameter(values, 'multiplier');
    this.memory = values['memory'] === true;
    this.historyMs = numberParameter(values, 'history');
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
    const fromHistory = this.upstream.recommend();
    if (declared === undefined) return fromHistory;
    const young =
      this.firstSampleMs === undefined ||
      timeMs - this.firstSampleMs < this.historyMs;
    if (young) {
      const start = scaleAmounts(declared, this.coefficient);
      const amounts = this.memory
        ? start
        : { ...start, memory: declared.memory };
      return { target: amounts, lowerBound: amounts, upperBound: amounts };
    }
    const shape = (amounts: ResourceAmounts): ResourceAmounts => {
      const scaled = scaleAmounts(amounts, this.multiplier);
      return {
        cpu: Math.min(scaled.cpu, declared.cpu),
        memory: this.memory
          ? Math.min(scaled.memory, declared.memory)
          : declared.memory,
      };
    };
    return {
      target: shape(fromHistory.target),
      lowerBound: shape(fromHistory.lowerBound),
      upperBound: shape(fromHistory.upperBound),
    };
  }
}
