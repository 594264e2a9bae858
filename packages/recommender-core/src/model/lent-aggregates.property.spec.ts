import type { AggregateContainerState } from '@tandem/estimators';
import fc from 'fast-check';
import { ClusterModel } from './cluster-model.js';
import {
  DAY,
  MIB,
  MINUTE,
  NS,
  podSnapshot,
  selectorFor,
  T0,
  vpaObject,
} from './model.fixtures.js';
import { checkpointsForVpa } from './vpa-checkpoints.js';

const APPS = ['web', 'api', 'db'] as const;

interface PodPlan {
  readonly app: (typeof APPS)[number];
  readonly containers: string[];
  /** Per minute fed, CPU millicores and memory MiB; a negative CPU sample is discarded. */
  readonly usage: [number, number][];
  /** Minutes after T0 of the first sample: histories of different ages merge. */
  readonly startMinutes: number;
}

const podPlan: fc.Arbitrary<PodPlan> = fc.record({
  app: fc.constantFrom(...APPS),
  containers: fc.subarray(['app', 'log', 'proxy'], { minLength: 1 }),
  usage: fc.array(
    fc.tuple(
      fc.integer({ min: -1, max: 8000 }),
      fc.integer({ min: 1, max: 16_384 }),
    ),
    { minLength: 0, maxLength: 8 },
  ),
  startMinutes: fc.integer({ min: 0, max: 30 * 24 * 60 }),
});

/** VPAs `web`, `api` and `db` (proxy Off in `web`), pods fed as planned. */
function modelOf(
  plans: readonly PodPlan[],
  containerOrder: (names: string[]) => string[] = (names) => names,
): ClusterModel {
  const model = new ClusterModel();
  for (const app of APPS)
    model.upsertVpa(
      vpaObject(app, {
        policies:
          app === 'web' ? [{ containerName: 'proxy', mode: 'Off' }] : undefined,
      }),
      selectorFor({ app }),
    );
  plans.forEach((plan, index) => {
    const pod = `${plan.app}-${index}`;
    model.upsertPod(
      podSnapshot(
        pod,
        { app: plan.app, pod: String(index % 2) },
        containerOrder([...plan.containers]),
      ),
      T0,
    );
    plan.usage.forEach(([cpu, memoryMib], minute) => {
      const timeMs = T0 + (plan.startMinutes + minute) * MINUTE;
      for (const container of plan.containers)
        model.addUsage(NS, pod, container, timeMs, cpu, memoryMib * MIB);
    });
  });
  return model;
}

/** Everything a merged history answers, bucket by bucket. */
function reading(merged: ReadonlyMap<string, AggregateContainerState>) {
  return [...merged].map(([name, state]) => ({
    name,
    histograms: [state.cpuHistogram, state.memoryHistogram].map(
      (histogram) => ({
        weights: Array.from(
          { length: histogram.options.numBuckets },
          (_, bucket) => histogram.bucketWeight(bucket),
        ),
        total: histogram.totalWeight,
        buckets: [histogram.minBucket, histogram.maxBucket],
        reference: histogram.referenceTimestampMs,
        percentiles: [0.5, 0.9, 0.95].map((p) => histogram.percentile(p)),
      }),
    ),
    first: state.firstSampleStartMs,
    last: state.lastSampleStartMs,
    samples: state.totalSamplesCount,
  }));
}

describe('lent merged aggregates', () => {
  it('read exactly as freshly merged ones, VPA after VPA, nested, whatever the containers’ order', () => {
    fc.assert(
      fc.property(
        fc.array(podPlan, { maxLength: 6 }),
        fc.array(fc.constantFrom(...APPS, 'none'), {
          minLength: 1,
          maxLength: 8,
        }),
        (plans, asked) => {
          // Models fed alike (merging may rescale the model's own histograms in place), the
          // third with each pod's containers listed the other way round: its aggregates
          // come in another order and must merge in the same (key) order.
          const lending = modelOf(plans);
          const fresh = modelOf(plans);
          const reversed = modelOf(plans, (names) => names.reverse());
          for (const [index, app] of asked.entries()) {
            const key = `${NS}/${app}`;
            const other = `${NS}/${asked[index + 1] ?? 'web'}`;
            const lent = lending.lendMergedAggregatesForVpa(key, (merged) => {
              const outer = reading(merged);
              // A lend inside a lend gets other aggregates: the outer ones stay as they were.
              const inner = lending.lendAggregatesForVpa(other, reading);
              return { outer, inner, after: reading(merged) };
            });
            const expected = reading(fresh.mergedAggregatesForVpa(key));
            expect(lent.outer).toEqual(expected);
            expect(lent.after).toEqual(expected);
            expect(reading(reversed.mergedAggregatesForVpa(key))).toEqual(
              expected,
            );
            const expectedInner = reading(fresh.aggregatesForVpa(other));
            expect(lent.inner).toEqual(expectedInner);
            expect(reading(reversed.aggregatesForVpa(other))).toEqual(
              expectedInner,
            );
            const checkpoints = checkpointsForVpa(fresh, key, T0 + 40 * DAY);
            expect(checkpointsForVpa(lending, key, T0 + 40 * DAY)).toEqual(
              checkpoints,
            );
            expect(checkpointsForVpa(reversed, key, T0 + 40 * DAY)).toEqual(
              checkpoints,
            );
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
