import {
  AggregateContainerState,
  ContainerState,
  recommendPod,
} from '@tandem/estimators';
import fc from 'fast-check';
import { configureStrategy } from './definition.js';
import type { UsageModel } from './strategy.js';
import { upstream } from './upstream.js';

const T0 = Date.parse('2024-01-01T00:00:00Z');
const MINUTE = 60_000;
const MIB = 1024 * 1024;

interface Sample {
  readonly stepMs: number;
  readonly cpu: number;
  readonly memory: number;
}

/** Sample sequences spanning minutes to a few weeks, with repeated times too. */
const samples = fc.array(
  fc.record({
    stepMs: fc.integer({ min: 0, max: 6 * 60 * MINUTE }),
    cpu: fc.integer({ min: 0, max: 8000 }),
    memory: fc.integer({ min: 0, max: 16 * 1024 * MIB }),
  }),
  { minLength: 1, maxLength: 120 },
);

function upstreamModel(texts: Record<string, string> = {}): UsageModel {
  const configured = configureStrategy(upstream, texts);
  if ('error' in configured) throw new Error(configured.error);
  return configured.strategy.model(T0);
}

/** Feeds the samples, returning the last sample's time. */
function feed(model: UsageModel, sequence: readonly Sample[]): number {
  let timeMs = T0;
  for (const { stepMs, cpu, memory } of sequence) {
    timeMs += stepMs;
    model.addUsage(timeMs, cpu, memory);
  }
  return timeMs;
}

describe('the upstream strategy', () => {
  it('recommends exactly what recommendPod does for the same samples (default parameters)', () => {
    fc.assert(
      fc.property(samples, (sequence) => {
        const model = upstreamModel();
        const lastMs = feed(model, sequence);
        const aggregate = new AggregateContainerState(T0);
        const container = new ContainerState(aggregate);
        let timeMs = T0;
        for (const { stepMs, cpu, memory } of sequence) {
          timeMs += stepMs;
          container.addSample({ timeMs, resource: 'cpu', usage: cpu });
          container.addSample({ timeMs, resource: 'memory', usage: memory });
        }
        expect(model.recommend(lastMs, undefined)).toEqual(
          recommendPod(new Map([['app', aggregate]])).get('app'),
        );
      }),
    );
  });

  it('never lowers a target for a higher target percentile', () => {
    fc.assert(
      fc.property(
        samples,
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        (sequence, a, b) => {
          const [low, high] = [Math.min(a, b) / 100, Math.max(a, b) / 100];
          const target = (percentile: number) => {
            const model = upstreamModel({
              'target-cpu-percentile': String(percentile),
              'target-memory-percentile': String(percentile),
            });
            return model.recommend(feed(model, sequence), undefined).target;
          };
          const lower = target(low);
          const higher = target(high);
          expect(higher.cpu).toBeGreaterThanOrEqual(lower.cpu);
          expect(higher.memory).toBeGreaterThanOrEqual(lower.memory);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('takes a higher percentile for a spread-out workload', () => {
    const sequence = Array.from({ length: 1440 }, (_, i) => ({
      stepMs: MINUTE,
      cpu: 100 + (i % 10) * 100,
      memory: 500 * MIB,
    }));
    const p50 = upstreamModel({ 'target-cpu-percentile': '0.5' });
    const p99 = upstreamModel({ 'target-cpu-percentile': '0.99' });
    const p50Target = p50.recommend(feed(p50, sequence), undefined).target;
    const p99Target = p99.recommend(feed(p99, sequence), undefined).target;
    expect(p50Target.cpu).toBeLessThan(p99Target.cpu);
    expect(p50Target.memory).toBe(p99Target.memory);
  });

  describe('OOM bump-up', () => {
    const day = Array.from({ length: 1440 }, () => ({
      stepMs: MINUTE,
      cpu: 500,
      memory: 500 * MIB,
    }));

    function afterOom(texts: Record<string, string>) {
      const model = upstreamModel(texts);
      const lastMs = feed(model, day);
      model.recordOom(lastMs, 400 * MIB);
      return model.recommend(lastMs, undefined);
    }

    /** The same day with one more memory peak of `bytes` at its last instant. */
    function withPeak(bytes: number) {
      const model = upstreamModel();
      const lastMs = feed(model, day);
      model.addUsage(lastMs, 500, bytes);
      return model.recommend(lastMs, undefined);
    }

    it('with ratio 1 and no minimum, an OOM at the peak adds nothing', () => {
      expect(
        afterOom({ 'oom-bump-up-ratio': '1', 'oom-min-bump-up': '0' }),
      ).toEqual(withPeak(500 * MIB));
    });

    it('bumps the larger of usage and request by the ratio', () => {
      // max(500 MiB, 400 MiB requested) × 2 = 1000 MiB, more than +100 MiB.
      expect(afterOom({ 'oom-bump-up-ratio': '2' })).toEqual(
        withPeak(1000 * MIB),
      );
      // × 1.2 = 600 MiB equals + 100 MiB: the defaults.
      expect(afterOom({})).toEqual(withPeak(600 * MIB));
    });

    it('bumps by the minimum when it is the larger', () => {
      expect(afterOom({ 'oom-min-bump-up': '300Mi' })).toEqual(
        withPeak(800 * MIB),
      );
    });

    it('a larger ratio gives a larger memory target', () => {
      expect(
        afterOom({ 'oom-bump-up-ratio': '3' }).target.memory,
      ).toBeGreaterThan(afterOom({ 'oom-bump-up-ratio': '2' }).target.memory);
    });
  });

  it('adds the margin parameter on top of the percentile', () => {
    const day = Array.from({ length: 1440 }, () => ({
      stepMs: MINUTE,
      cpu: 500,
      memory: 500 * MIB,
    }));
    const bare = upstreamModel({ margin: '0' });
    const doubled = upstreamModel({ margin: '1' });
    const bareTarget = bare.recommend(feed(bare, day), undefined).target;
    expect(doubled.recommend(feed(doubled, day), undefined).target).toEqual({
      cpu: 2 * bareTarget.cpu,
      memory: 2 * bareTarget.memory,
    });
  });
});
