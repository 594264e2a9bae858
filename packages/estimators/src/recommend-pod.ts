import type { AggregateContainerState } from './aggregate-container-state.js';
import {
  type AmountEstimator,
  percentileEstimator,
  withConfidenceMultiplier,
  withMargin,
  withMinimum,
} from './estimators.js';
import {
  DEFAULT_RECOMMENDER_CONFIG,
  type RecommenderConfig,
  requireValidRecommenderConfig,
} from './recommender-config.js';
import {
  cpuAmountFromCores,
  type ResourceAmounts,
  type ResourceName,
  scaleResourceAmount,
  toResourceAmount,
} from './resource-amount.js';

/** The three estimates for one container, in millicores and bytes. */
export interface RecommendedContainerResources {
  readonly target: ResourceAmounts;
  readonly lowerBound: ResourceAmounts;
  readonly upperBound: ResourceAmounts;
}

type Estimate = keyof RecommendedContainerResources;

/**
 * Recommends resources for every container of a pod, from the aggregates merged per
 * container name. The per-pod minimum is split evenly over the containers in the map
 * (leave out containers that should not count, as upstream leaves out mode-Off ones).
 */
export function recommendPod(
  aggregatesByContainer: ReadonlyMap<string, AggregateContainerState>,
  config: RecommenderConfig = DEFAULT_RECOMMENDER_CONFIG,
): Map<string, RecommendedContainerResources> {
  const recommendations = new Map<string, RecommendedContainerResources>();
  if (aggregatesByContainer.size === 0) return recommendations;
  const estimators = podEstimators(config, aggregatesByContainer.size);
  for (const [containerName, state] of aggregatesByContainer) {
    recommendations.set(containerName, {
      target: estimate(estimators.target, state),
      lowerBound: estimate(estimators.lowerBound, state),
      upperBound: estimate(estimators.upperBound, state),
    });
  }
  return recommendations;
}

type PodEstimators = Record<Estimate, ResourceEstimators>;

/**
 * Estimator chains depend only on the config and the pod's container count, so they are
 * built (and the config validated) once per pair, not once per pod: a recommender asks for
 * tens of thousands of pods per cycle with one config object.
 */
const podEstimatorCache = new WeakMap<
  RecommenderConfig,
  Map<number, PodEstimators>
>();

function podEstimators(
  config: RecommenderConfig,
  containerCount: number,
): PodEstimators {
  let byCount = podEstimatorCache.get(config);
  if (byCount === undefined) {
    requireValidRecommenderConfig(config);
    byCount = new Map();
    podEstimatorCache.set(config, byCount);
  }
  let estimators = byCount.get(containerCount);
  if (estimators === undefined) {
    const minimum = podMinimumShare(config, containerCount);
    estimators = {
      target: resourceEstimators(config, 'target', minimum),
      lowerBound: resourceEstimators(config, 'lowerBound', minimum),
      upperBound: resourceEstimators(config, 'upperBound', minimum),
    };
    byCount.set(containerCount, estimators);
  }
  return estimators;
}

/** Each container's share of the per-pod minimum, truncated as upstream truncates it. */
export function podMinimumShare(
  config: RecommenderConfig,
  containerCount: number,
): ResourceAmounts {
  const fraction = 1 / containerCount;
  // Through cores and back, as upstream does: the same float steps, the same truncation.
  return {
    cpu: scaleResourceAmount(
      cpuAmountFromCores(config.podMinCpuMillicores * 0.001),
      fraction,
    ),
    memory: scaleResourceAmount(
      toResourceAmount(config.podMinMemoryMb * 1024 * 1024),
      fraction,
    ),
  };
}

type ResourceEstimators = Record<ResourceName, AmountEstimator>;

/**
 * What differs between the three estimates: the percentile settings, and how the bound
 * widens while history is short (the confidence factor's multiplier and exponent).
 */
const ESTIMATES = {
  target: {
    percentile: {
      cpu: 'targetCpuPercentile',
      memory: 'targetMemoryPercentile',
    },
    confidence: undefined,
  },
  lowerBound: {
    percentile: {
      cpu: 'lowerBoundCpuPercentile',
      memory: 'lowerBoundMemoryPercentile',
    },
    confidence: { multiplier: 0.001, exponent: -2 },
  },
  upperBound: {
    percentile: {
      cpu: 'upperBoundCpuPercentile',
      memory: 'upperBoundMemoryPercentile',
    },
    confidence: { multiplier: 1, exponent: 1 },
  },
} as const satisfies Record<
  Estimate,
  {
    percentile: Record<ResourceName, keyof RecommenderConfig>;
    confidence: { multiplier: number; exponent: number } | undefined;
  }
>;

const CONFIDENCE_INTERVAL = {
  cpu: 'confidenceIntervalCpuMs',
  memory: 'confidenceIntervalMemoryMs',
} as const satisfies Record<ResourceName, keyof RecommenderConfig>;

function resourceEstimators(
  config: RecommenderConfig,
  kind: Estimate,
  minimum: ResourceAmounts,
): ResourceEstimators {
  const { percentile, confidence } = ESTIMATES[kind];
  const chain = (resource: ResourceName): AmountEstimator => {
    const withHistory = withMargin(
      resource === 'cpu'
        ? (config.cpuRecommendationMarginFraction ??
            config.recommendationMarginFraction)
        : config.recommendationMarginFraction,
      percentileEstimator(resource, config[percentile[resource]]),
    );
    const bounded =
      confidence === undefined
        ? withHistory
        : withConfidenceMultiplier(
            confidence.multiplier,
            confidence.exponent,
            config[CONFIDENCE_INTERVAL[resource]],
            withHistory,
          );
    return withMinimum(minimum[resource], bounded);
  };
  return { cpu: chain('cpu'), memory: chain('memory') };
}

function estimate(
  estimators: ResourceEstimators,
  state: AggregateContainerState,
): ResourceAmounts {
  return { cpu: estimators.cpu(state), memory: estimators.memory(state) };
}
