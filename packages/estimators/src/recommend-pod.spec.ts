import { AggregateContainerState } from './aggregate-container-state.js';
import { ContainerState } from './container-state.js';
import { podMinimumShare, recommendPod } from './recommend-pod.js';
import { DEFAULT_RECOMMENDER_CONFIG } from './recommender-config.js';

const MINUTE = 60_000;
const MIB = 1024 * 1024;
const T0 = Date.parse('2024-01-01T00:00:00Z');

/** One container reporting the same usage every minute for `minutes` minutes. */
function steadyContainer(
  millicores: number,
  bytes: number,
  minutes: number,
): AggregateContainerState {
  const aggregate = new AggregateContainerState(T0);
  const container = new ContainerState(aggregate);
  for (let i = 0; i < minutes; i++) {
    container.addSample({
      timeMs: T0 + i * MINUTE,
      resource: 'cpu',
      usage: millicores,
    });
    container.addSample({
      timeMs: T0 + i * MINUTE,
      resource: 'memory',
      usage: bytes,
    });
  }
  return aggregate;
}

describe('recommendPod', () => {
  it('recommends for a steady workload after a day (golden vector 15)', () => {
    const recommendation = recommendPod(
      new Map([['app', steadyContainer(500, 500 * MIB, 1440)]]),
    );
    expect(recommendation.get('app')).toEqual({
      target: { cpu: 587, memory: 628694953 },
      lowerBound: { cpu: 585, memory: 627438575 },
      upperBound: { cpu: 1174, memory: 1257826803 },
    });
  });

  it('lifts a small memory estimate to the per-pod minimum (golden vector 15, 200 MiB)', () => {
    const recommendation = recommendPod(
      new Map([['app', steadyContainer(500, 200 * MIB, 1440)]]),
    );
    expect(recommendation.get('app')).toEqual({
      target: { cpu: 587, memory: 262144000 },
      lowerBound: { cpu: 585, memory: 262144000 },
      upperBound: { cpu: 1174, memory: 496479408 },
    });
  });

  it('spans minimum to cap for a fresh pod (golden vector 16)', () => {
    const recommendation = recommendPod(
      new Map([['app', steadyContainer(500, 500 * MIB, 1)]]),
    );
    expect(recommendation.get('app')).toEqual({
      target: { cpu: 587, memory: 628694953 },
      lowerBound: { cpu: 25, memory: 262144000 },
      upperBound: { cpu: 1e14, memory: 1e14 },
    });
  });

  it('gives the minimum everywhere for a container without samples', () => {
    const recommendation = recommendPod(
      new Map([['idle', new AggregateContainerState(T0)]]),
    );
    expect(recommendation.get('idle')).toEqual({
      target: { cpu: 25, memory: 262144000 },
      lowerBound: { cpu: 25, memory: 262144000 },
      upperBound: { cpu: 25, memory: 262144000 },
    });
  });

  it('splits the per-pod minimum over the containers (golden vector 14)', () => {
    const recommendation = recommendPod(
      new Map([
        ['a', new AggregateContainerState(T0)],
        ['b', new AggregateContainerState(T0)],
      ]),
    );
    for (const name of ['a', 'b']) {
      expect(recommendation.get(name)?.target).toEqual({
        cpu: 12,
        memory: 131072000,
      });
    }
  });

  it('recommends nothing for no containers', () => {
    expect(recommendPod(new Map()).size).toBe(0);
  });

  it('follows the configuration', () => {
    const aggregate = steadyContainer(500, 500 * MIB, 1440);
    const recommendation = recommendPod(new Map([['app', aggregate]]), {
      ...DEFAULT_RECOMMENDER_CONFIG,
      recommendationMarginFraction: 0,
      podMinMemoryMb: 1024,
    });
    expect(recommendation.get('app')?.target).toEqual({
      cpu: 511,
      memory: 1073741824,
    });
  });

  it("gives CPU a margin of its own when cpuRecommendationMarginFraction is set (Tandem's)", () => {
    const aggregates = new Map([
      ['app', steadyContainer(500, 500 * MIB, 1440)],
    ]);
    const upstream = recommendPod(aggregates).get('app');
    const noMargin = recommendPod(aggregates, {
      ...DEFAULT_RECOMMENDER_CONFIG,
      recommendationMarginFraction: 0,
    }).get('app');
    const mixed = recommendPod(aggregates, {
      ...DEFAULT_RECOMMENDER_CONFIG,
      cpuRecommendationMarginFraction: 0,
    }).get('app');
    expect(mixed?.target).toEqual({
      cpu: 511,
      memory: upstream?.target.memory,
    });
    expect(mixed?.upperBound.cpu).toBe(noMargin?.upperBound.cpu);
    expect(mixed?.lowerBound.memory).toBe(upstream?.lowerBound.memory);
    expect(() =>
      recommendPod(aggregates, {
        ...DEFAULT_RECOMMENDER_CONFIG,
        cpuRecommendationMarginFraction: -1,
      }),
    ).toThrow(
      new RangeError(
        'cpuRecommendationMarginFraction must be a finite number >= 0, got -1',
      ),
    );
  });

  it('refuses an unusable configuration', () => {
    const aggregates = new Map([['app', new AggregateContainerState(T0)]]);
    expect(() =>
      recommendPod(aggregates, {
        ...DEFAULT_RECOMMENDER_CONFIG,
        targetCpuPercentile: Number.NaN,
      }),
    ).toThrow(
      new RangeError(
        'targetCpuPercentile must be a finite number >= 0, got NaN',
      ),
    );
    expect(() =>
      recommendPod(aggregates, {
        ...DEFAULT_RECOMMENDER_CONFIG,
        confidenceIntervalCpuMs: 0,
      }),
    ).toThrow(
      new RangeError(
        'confidenceIntervalCpuMs must be a finite number > 0, got 0',
      ),
    );
  });
});

describe('podMinimumShare', () => {
  it('truncates each share (golden vector 14)', () => {
    expect(podMinimumShare(DEFAULT_RECOMMENDER_CONFIG, 1)).toEqual({
      cpu: 25,
      memory: 262144000,
    });
    expect(podMinimumShare(DEFAULT_RECOMMENDER_CONFIG, 2)).toEqual({
      cpu: 12,
      memory: 131072000,
    });
    expect(podMinimumShare(DEFAULT_RECOMMENDER_CONFIG, 3)).toEqual({
      cpu: 8,
      memory: 87381333,
    });
  });
});
