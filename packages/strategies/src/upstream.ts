import {
  AggregateContainerState,
  ContainerState,
  DEFAULT_AGGREGATION_CONFIG,
  DEFAULT_RECOMMENDER_CONFIG,
  recommendPod,
  type AggregationConfig,
  type RecommendedContainerResources,
  type RecommenderConfig,
} from '@tandem/estimators';
import {
  MARGIN_PARAMETER,
  OOM_PARAMETERS,
  oomSettings,
  percentileParameter,
} from './common-parameters.js';
import type { StrategyDefinition } from './definition.js';
import { HistoryClock } from './history-clock.js';
import { holdWithinBand } from './hold.js';
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
  create: (values) => upstreamStrategy('upstream', values),
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

/** Where a strategy built on upstream's model departs from it. */
export interface UpstreamModelOptions {
  /** Upstream's zero-peak quirk (`ContainerState`); on unless turned off. */
  readonly zeroPeakIgnoresWindow?: boolean;
  /** A margin for CPU of its own; `margin` then applies to memory only. */
  readonly cpuMarginFraction?: number;
  /** History ages at most this much across a gap in the samples ({@link HistoryClock}). */
  readonly longestGapMs?: number;
  /** Each recommendation goes through {@link holdWithinBand} with this band. */
  readonly holdBand?: number;
}

/** Upstream's model with these parameters and departures. */
export function upstreamStrategy(
  name: string,
  values: ParameterValues,
  options: UpstreamModelOptions = {},
): Strategy {
  const { aggregation, recommender } = upstreamConfigs(values);
  return {
    name,
    parameters: values,
    model: (startMs) =>
      new UpstreamModel(startMs, aggregation, recommender, options),
  };
}

/**
 * Upstream's recommendation for each container of a pod (`recommendPod`), with CPU's
 * figures computed with a margin of their own when `cpuMarginFraction` is given. Shared
 * by the replay's model and the live recommender, so both give the same numbers.
 */
export function recommendContainers(
  aggregates: ReadonlyMap<string, AggregateContainerState>,
  recommender: RecommenderConfig,
  cpuMarginFraction: number | undefined,
): Map<string, RecommendedContainerResources> {
  return recommendPod(
    aggregates,
    cpuMarginFraction === undefined
      ? recommender
      : withCpuMargin(recommender, cpuMarginFraction),
  );
}

/**
 * The config with CPU's margin, one object per pair: `recommendPod` builds its estimator
 * chains once per config object, so a fresh object per call would rebuild them each time.
 */
const cpuConfigs = new WeakMap<
  RecommenderConfig,
  Map<number, RecommenderConfig>
>();

function withCpuMargin(
  recommender: RecommenderConfig,
  cpuMarginFraction: number,
): RecommenderConfig {
  let byMargin = cpuConfigs.get(recommender);
  if (byMargin === undefined) {
    byMargin = new Map();
    cpuConfigs.set(recommender, byMargin);
  }
  let config = byMargin.get(cpuMarginFraction);
  if (config === undefined) {
    config = {
      ...recommender,
      cpuRecommendationMarginFraction: cpuMarginFraction,
    };
    byMargin.set(cpuMarginFraction, config);
  }
  return config;
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
  private readonly cpuMarginFraction: number | undefined;
  private readonly clock: HistoryClock | undefined;
  private readonly holdBand: number;
  private held: StrategyRecommendation | undefined;

  constructor(
    startMs: number,
    aggregation: AggregationConfig,
    recommender: RecommenderConfig,
    options: UpstreamModelOptions = {},
  ) {
    this.aggregate = new AggregateContainerState(startMs, aggregation);
    this.container = new ContainerState(this.aggregate, {
      zeroPeakIgnoresWindow: options.zeroPeakIgnoresWindow,
    });
    this.aggregates = new Map([[CONTAINER, this.aggregate]]);
    this.config = recommender;
    this.cpuMarginFraction = options.cpuMarginFraction;
    this.clock =
      options.longestGapMs === undefined
        ? undefined
        : new HistoryClock(options.longestGapMs);
    this.holdBand = options.holdBand ?? 0;
  }

  addUsage(realMs: number, cpuMillicores: number, memoryBytes: number): void {
    const timeMs = this.clock?.sample(realMs) ?? realMs;
    this.container.addSample({ timeMs, resource: 'cpu', usage: cpuMillicores });
    this.container.addSample({
      timeMs,
      resource: 'memory',
      usage: memoryBytes,
    });
  }

  recordOom(realMs: number, requestedMemoryBytes: number): void {
    const timeMs = this.clock?.sample(realMs) ?? realMs;
    this.container.recordOom(timeMs, requestedMemoryBytes);
  }

  recommend(): StrategyRecommendation {
    const recommendation = recommendContainers(
      this.aggregates,
      this.config,
      this.cpuMarginFraction,
    ).get(CONTAINER);
    if (recommendation === undefined)
      throw new Error('upstream recommended nothing for its only container');
    this.held = holdWithinBand(this.held, recommendation, this.holdBand);
    return this.held;
  }
}
