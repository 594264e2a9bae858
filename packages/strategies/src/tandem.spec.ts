import {
  AggregateContainerState,
  DEFAULT_RECOMMENDER_CONFIG,
  recommendPod,
} from '@tandem/estimators';
import fc from 'fast-check';
import { configureStrategy } from './definition.js';
import type { UsageModel } from './strategy.js';
import { model, T0 } from './strategy.fixtures.js';
import { tandem } from './tandem.js';
import { recommendContainers, upstream } from './upstream.js';

const FIVE_MINUTES = 5 * 60_000;
const MIB = 1024 * 1024;

/** Usage that never reads 0 bytes, so the zero-peak quirk plays no part. */
const usage = fc.array(
  fc.record({
    cpu: fc.integer({ min: 0, max: 4000 }),
    memory: fc.integer({ min: 1, max: 8 * 1024 * MIB }),
  }),
  { minLength: 1, maxLength: 600 },
);

function feed(
  target: UsageModel,
  samples: readonly { cpu: number; memory: number }[],
): number {
  samples.forEach(({ cpu, memory }, i) =>
    target.addUsage(T0 + i * FIVE_MINUTES, cpu, memory),
  );
  return T0 + (samples.length - 1) * FIVE_MINUTES;
}

describe('the tandem strategy', () => {
  it("gives upstream's CPU with margin=0 and upstream's memory, when memory never reads 0", () => {
    fc.assert(
      fc.property(usage, (samples) => {
        const ours = model(tandem);
        const noCpuMargin = model(upstream, { margin: '0' });
        const theirs = model(upstream);
        const at = feed(ours, samples);
        feed(noCpuMargin, samples);
        feed(theirs, samples);
        const recommendation = ours.recommend(at, undefined);
        const cpuFigures = noCpuMargin.recommend(at, undefined);
        const memoryFigures = theirs.recommend(at, undefined);
        for (const bound of ['target', 'lowerBound', 'upperBound'] as const) {
          expect(recommendation[bound]).toEqual({
            cpu: cpuFigures[bound].cpu,
            memory: memoryFigures[bound].memory,
          });
        }
      }),
    );
  });

  it('keeps a day whose first memory sample reads 0, where upstream files no peak', () => {
    const day = (first: number) =>
      [first, 512 * MIB, 1024 * MIB, 768 * MIB].map((memory) => ({
        cpu: 100,
        memory,
      }));
    const ours = model(tandem);
    const theirs = model(upstream);
    const theirsWithoutZero = model(upstream);
    const at = feed(ours, day(0));
    feed(theirs, day(0));
    feed(theirsWithoutZero, day(1));
    expect(theirs.recommend(at, undefined).target.memory).toBe(250 * MIB);
    expect(ours.recommend(at, undefined).target.memory).toBe(
      theirsWithoutZero.recommend(at, undefined).target.memory,
    );
    expect(ours.recommend(at, undefined).target.memory).toBeGreaterThan(
      1024 * MIB,
    );
  });

  it('takes its margins as parameters, cpu-margin for CPU and margin for memory', () => {
    const configured = configureStrategy(tandem, {
      'cpu-margin': '0.3',
      margin: '0',
    });
    expect(configured).toEqual({
      strategy: expect.objectContaining({
        parameters: expect.objectContaining({ 'cpu-margin': 0.3, margin: 0 }),
      }),
    });
  });
});

describe('recommendContainers', () => {
  const aggregate = new AggregateContainerState(T0);
  for (let i = 0; i < 50; i++) {
    aggregate.addCpuSample(T0 + i * FIVE_MINUTES, 200 + 10 * i);
    aggregate.addMemoryPeak(T0 + 86_400_000, (500 + i) * MIB);
  }
  const aggregates = new Map([['app', aggregate]]);

  it('is recommendPod without a CPU margin of its own', () => {
    expect(
      recommendContainers(aggregates, DEFAULT_RECOMMENDER_CONFIG, undefined),
    ).toEqual(recommendPod(aggregates, DEFAULT_RECOMMENDER_CONFIG));
  });

  it("takes CPU's figures from the config with CPU's margin, memory's from the config", () => {
    const mixed = recommendContainers(
      aggregates,
      DEFAULT_RECOMMENDER_CONFIG,
      0,
    ).get('app');
    const cpu = recommendPod(aggregates, {
      ...DEFAULT_RECOMMENDER_CONFIG,
      recommendationMarginFraction: 0,
    }).get('app');
    const memory = recommendPod(aggregates, DEFAULT_RECOMMENDER_CONFIG).get(
      'app',
    );
    expect(mixed?.target).toEqual({
      cpu: cpu?.target.cpu,
      memory: memory?.target.memory,
    });
    expect(mixed?.target.cpu).toBeLessThan(memory?.target.cpu ?? 0);
    expect(mixed?.upperBound).toEqual({
      cpu: cpu?.upperBound.cpu,
      memory: memory?.upperBound.memory,
    });
  });
});
