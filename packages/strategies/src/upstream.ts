import {
  AggregateContainerState,
  ContainerState,
  DEFAULT_AGGREGATION_CONFIG,
  DEFAULT_RECOMMENDER_CONFIG,
  recommendPod,
  type AggregationConfig,
  type RecommenderConfig,
} from '@tandem/estimators';
import {
  MARGIN_PARAMETER,
  OOM_PARAMETERS,
  oomSettings,
  percentileParameter,
} from './common-parameters.js';
import type { StrategyDefinition } from './definition.js';
import { numberParameter, type ParameterValues } from './parameters.js';
import type {
  Strategy,
  StrategyRecommendation,
  UsageModel,
} from './strategy.js';

/** The one container name a single-series model files its history under. */
const CONTAINER = 'container';

/**
 * Upstream's recommender, to the bit, with its per-VPA knobs: the target percentiles (its
 * `--target-cpu-percentile` and `--target-memory-percentile` flags, per VPA) and the OOM
 * bump-up (its `PerVPAConfig` fields `oomBumpUpRatio` and `oomMinBumpUp`).
 */
export const upstream: StrategyDefinition = {
  name: 'upstream',
  summary:
    'upstream VPA 1.x: p90 of a 24 h decaying CPU histogram and of 8 daily memory peaks, +15 %',
  parameters: {
    'target-cpu-percentile': percentileParameter(0.9, 'CPU usage histogram'),
    'target-memory-percentile': percentileParameter(
      0.9,
      'daily memory peaks histogram',
    ),
    margin: MARGIN_PARAMETER,
    ...OOM_PARAMETERS,
  },
  create: (values) => upstreamStrategy('upstream', values, true),
};

/** Upstream's configuration with these parameter values. */
export function upstreamConfigs(values: ParameterValues): {
  aggregation: AggregationConfig;
  recommender: RecommenderConfig;
} {
  return {
    aggregation: {
      ...DEFAULT_AGGREGATION_CONFIG,
      ...oomSettings(values),
    },
    recommender: {
      ...DEFAULT_RECOMMENDER_CONFIG,
      targetCpuPercentile: numberParameter(values, 'target-cpu-percentile'),
      targetMemoryPercentile: numberParameter(
        values,
        'target-memory-percentile',
      ),
      recommendationMarginFraction: numberParameter(values, 'margin'),
    },
  };
}

/** Upstream's model with these parameters, and with or without its zero-peak quirk. */
export function upstreamStrategy(
  name: string,
  values: ParameterValues,
  zeroPeakIgnoresWindow: boolean,
): Strategy {
  const { aggregation, recommender } = upstreamConfigs(values);
  return {
    name,
    parameters: values,
    model: (startMs) =>
      new UpstreamModel(startMs, aggregation, recommender, {
        zeroPeakIgnoresWindow,
      }),
  };
}

/**
 * One container under one VPA in upstream's model: every sample goes through a
 * `ContainerState` (one memory peak per day) into the aggregate the recommendation reads.
 */
export class UpstreamModel implements UsageModel {
  readonly aggregate: AggregateContainerState;
  private readonly container: ContainerState;
  private readonly aggregates: ReadonlyMap<string, AggregateContainerState>;
  private readonly config: RecommenderConfig;

  constructor(
    startMs: number,
    aggregation: AggregationConfig,
    recommender: RecommenderConfig,
    containerOptions: { zeroPeakIgnoresWindow?: boolean } = {},
  ) {
    this.aggregate = new AggregateContainerState(startMs, aggregation);
    this.container = new ContainerState(this.aggregate, containerOptions);
    this.aggregates = new Map([[CONTAINER, this.aggregate]]);
    this.config = recommender;
  }

  addUsage(timeMs: number, cpuMillicores: number, memoryBytes: number): void {
    this.container.addSample({ timeMs, resource: 'cpu', usage: cpuMillicores });
    this.container.addSample({
      timeMs,
      resource: 'memory',
      usage: memoryBytes,
    });
  }

  recordOom(timeMs: number, requestedMemoryBytes: number): void {
    this.container.recordOom(timeMs, requestedMemoryBytes);
  }

  recommend(): StrategyRecommendation {
    const recommendation = recommendPod(this.aggregates, this.config).get(
      CONTAINER,
    );
    if (recommendation === undefined)
      throw new Error('upstream recommended nothing for its only container');
    return recommendation;
  }
}
