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
const DAY = 86_400_000;
const MIB = 1024 * 1024;
/** Upstream with tandem's CPU knobs, and with its memory knobs. */
const CPU_KNOBS = { 'target-cpu-percentile': '0.75', margin: '0' };
const MEMORY_KNOBS = { 'target-memory-percentile': '0.8', margin: '0.05' };

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
  it("gives upstream's CPU at p75 without margin and its memory at p80 + 5 %, when memory never reads 0 and nothing is held", () => {
    fc.assert(
      fc.property(usage, (samples) => {
        const ours = model(tandem, { 'hold-band': '0' });
        const cpuModel = model(upstream, CPU_KNOBS);
        const memoryModel = model(upstream, MEMORY_KNOBS);
        const at = feed(ours, samples);
        feed(cpuModel, samples);
        feed(memoryModel, samples);
        const recommendation = ours.recommend(at, undefined);
        const cpuFigures = cpuModel.recommend(at, undefined);
        const memoryFigures = memoryModel.recommend(at, undefined);
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
    const theirs = model(upstream, MEMORY_KNOBS);
    const theirsWithoutZero = model(upstream, MEMORY_KNOBS);
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

  it('waits out a gap of days: the first small sample after it does not drag the targets to the minimum', () => {
    const busy = Array.from({ length: 9 * 288 }, () => ({
      cpu: 1000,
      memory: 2048 * MIB,
    }));
    const [ours, theirs] = [
      model(tandem, { 'hold-band': '0' }),
      model(upstream, { ...CPU_KNOBS, ...MEMORY_KNOBS }),
    ];
    const end = feed(ours, busy);
    feed(theirs, busy);
    const back = end + 11 * DAY;
    for (const resumed of [ours, theirs]) resumed.addUsage(back, 10, 10 * MIB);
    // Upstream weighs the one new sample 2^11 times the whole history: the targets follow it.
    expect(theirs.recommend(back, undefined).target).toEqual({
      cpu: 25,
      memory: 250 * MIB,
    });
    // Tandem's history aged an hour over the gap: the targets stay with the nine busy days.
    const target = ours.recommend(back, undefined).target;
    expect(target.cpu).toBeGreaterThanOrEqual(1000);
    expect(target.memory).toBeGreaterThanOrEqual(2048 * MIB);
  });

  it('holds its recommendation through a drift of less than 15 %, and follows a larger one', () => {
    const held = model(tandem);
    const unheld = model(tandem, { 'hold-band': '0' });
    const day = Array.from({ length: 288 }, () => ({
      cpu: 1000,
      memory: 1024 * MIB,
    }));
    const at = feed(held, day);
    feed(unheld, day);
    const first = held.recommend(at, undefined);
    for (let i = 1; i <= 288; i++)
      for (const fed of [held, unheld])
        fed.addUsage(at + i * FIVE_MINUTES, 1100, 1024 * MIB);
    const later = at + 288 * FIVE_MINUTES;
    expect(unheld.recommend(later, undefined).target.cpu).toBeGreaterThan(
      first.target.cpu,
    );
    expect(held.recommend(later, undefined)).toEqual(first);
    for (let i = 289; i <= 3 * 288; i++)
      held.addUsage(at + i * FIVE_MINUTES, 2000, 1024 * MIB);
    expect(
      held.recommend(at + 3 * 288 * FIVE_MINUTES, undefined).target.cpu,
    ).toBeGreaterThan(first.target.cpu * 1.15);
  });

  it('never gives less memory than without its hold band, nor CPU more than the band away', () => {
    fc.assert(
      fc.property(usage, (samples) => {
        const held = model(tandem);
        const unheld = model(tandem, { 'hold-band': '0' });
        samples.forEach(({ cpu, memory }, i) => {
          const at = T0 + i * FIVE_MINUTES;
          held.addUsage(at, cpu, memory);
          unheld.addUsage(at, cpu, memory);
          const given = held.recommend(at, undefined).target;
          const fresh = unheld.recommend(at, undefined).target;
          expect(given.memory).toBeGreaterThanOrEqual(fresh.memory);
          expect(Math.abs(given.cpu - fresh.cpu)).toBeLessThanOrEqual(
            0.15 * given.cpu,
          );
        });
      }),
      { numRuns: 30 },
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
