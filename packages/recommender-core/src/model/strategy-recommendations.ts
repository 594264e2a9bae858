import {
  type AggregateContainerState,
  recommendPod,
  type RecommendedContainerResources,
  type RecommenderConfig,
} from '@tandem/estimators';
import {
  recommendContainers,
  vivoRecommendation,
  type Strategy,
} from '@tandem/strategies';
import type { ClusterModel } from './cluster-model.js';
import type { TrackedVpa } from './tracked-vpa.js';

/**
 * Per container, what the VPA's strategy recommends from `aggregates` (upstream's merged
 * history, Off and empty containers already left out) at `nowMs`:
 * - upstream and tandem: upstream's estimator chain with the VPA's percentiles and margin
 *   over `base` (the flags); tandem differs in how its containers filed memory peaks (at
 *   its history clock's times, without the zero-peak quirk), in CPU's own margin
 *   (`cpu-margin`), and holds what it gave within its band through its live state;
 * - vivo: upstream's numbers shaped by vivo's rules against what the pods declared, with
 *   the aggregate's history age (from its first sample) as vivo's "history";
 * - strategies with their own state (autopilot): that state, once it has a sample; a
 *   container without one gets no recommendation rather than a floor-sized one.
 */
export function strategyRecommendations(
  model: ClusterModel,
  vpa: TrackedVpa,
  aggregates: ReadonlyMap<string, AggregateContainerState>,
  base: RecommenderConfig,
  nowMs: number,
): Map<string, RecommendedContainerResources> {
  const { strategy } = vpa.strategy;
  if (strategy.name === 'vivo') {
    const declared = model.declaredOfVpa(vpa.key);
    const fromHistory = recommendPod(aggregates, base);
    for (const [name, recommendation] of fromHistory) {
      const firstMs = aggregates.get(name)?.firstSampleStartMs ?? nowMs;
      fromHistory.set(
        name,
        vivoRecommendation(
          strategy.parameters,
          recommendation,
          declared.get(name),
          nowMs - firstMs,
        ),
      );
    }
    return fromHistory;
  }
  if (strategy.name === 'autopilot') {
    const declared = model.declaredOfVpa(vpa.key);
    const own = new Map<string, RecommendedContainerResources>();
    for (const name of aggregates.keys()) {
      const live = vpa.strategy.live.get(name);
      if (live !== undefined && !live.state.empty)
        own.set(name, live.state.recommend(nowMs, declared.get(name)));
    }
    return own;
  }
  const cpuMargin = strategy.parameters['cpu-margin'];
  const fromHistory = recommendContainers(
    aggregates,
    withKnobs(base, strategy),
    typeof cpuMargin === 'number' ? cpuMargin : undefined,
  );
  if (strategy.name !== 'tandem') return fromHistory;
  // tandem holds what it gave within its band (holdWithinBand), in its live state.
  for (const [name, recommendation] of fromHistory) {
    const live = vpa.strategy.live.get(name);
    if (live !== undefined)
      fromHistory.set(
        name,
        live.state.recommend(nowMs, undefined, recommendation),
      );
  }
  return fromHistory;
}

/**
 * One config per flags and strategy: `recommendPod` builds its estimator chains once per
 * config object, and a cycle asks for every VPA, most of them with the same strategy.
 */
const knobbed = new WeakMap<
  RecommenderConfig,
  WeakMap<Strategy, RecommenderConfig>
>();

function withKnobs(
  base: RecommenderConfig,
  strategy: Strategy,
): RecommenderConfig {
  let byStrategy = knobbed.get(base);
  if (byStrategy === undefined) {
    byStrategy = new WeakMap();
    knobbed.set(base, byStrategy);
  }
  let config = byStrategy.get(strategy);
  if (config === undefined) {
    config = knobs(base, strategy);
    byStrategy.set(strategy, config);
  }
  return config;
}

/** `base` with the knobs upstream's strategies take per VPA. */
function knobs(base: RecommenderConfig, strategy: Strategy): RecommenderConfig {
  const knob = (name: string, fallback: number) => {
    const value = strategy.parameters[name];
    return typeof value === 'number' ? value : fallback;
  };
  return {
    ...base,
    targetCpuPercentile: knob(
      'target-cpu-percentile',
      base.targetCpuPercentile,
    ),
    targetMemoryPercentile: knob(
      'target-memory-percentile',
      base.targetMemoryPercentile,
    ),
    recommendationMarginFraction: knob(
      'margin',
      base.recommendationMarginFraction,
    ),
  };
}
