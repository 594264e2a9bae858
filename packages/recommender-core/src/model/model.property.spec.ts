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
import { statusChanged } from './status-changed.js';
import { computeVpaStatus } from './vpa-status.js';

interface PodPlan {
  readonly track: string;
  readonly containers: string[];
  readonly cpuMillicores: number;
  readonly memoryMib: number;
}

const podPlan: fc.Arbitrary<PodPlan> = fc.record({
  track: fc.constantFrom('a', 'b', 'c'),
  containers: fc.subarray(['app', 'log', 'proxy'], { minLength: 1 }),
  cpuMillicores: fc.integer({ min: 0, max: 4000 }),
  memoryMib: fc.integer({ min: 1, max: 4096 }),
});

/** Upserts the pods in `order`, then feeds each an hour of samples in time order. */
function statusAfter(plans: readonly PodPlan[], order: readonly number[]) {
  const model = new ClusterModel();
  model.upsertVpa(
    vpaObject('web', { policies: [{ containerName: 'proxy', mode: 'Off' }] }),
    selectorFor({ app: 'web' }),
  );
  for (const index of order) {
    const plan = plans[index];
    if (plan === undefined) continue;
    model.upsertPod(
      podSnapshot(
        `web-${index}`,
        { app: 'web', track: plan.track },
        plan.containers,
      ),
      T0,
    );
  }
  for (let minute = 0; minute < 60; minute += 1) {
    for (const index of order) {
      const plan = plans[index];
      for (const container of plan?.containers ?? []) {
        const timeMs = T0 + minute * MINUTE;
        model.addSample(NS, `web-${index}`, container, {
          timeMs,
          resource: 'cpu',
          usage: plan?.cpuMillicores ?? 0,
        });
        model.addSample(NS, `web-${index}`, container, {
          timeMs,
          resource: 'memory',
          usage: (plan?.memoryMib ?? 0) * MIB,
        });
      }
    }
  }
  return computeVpaStatus(model, 'shop/web', { nowMs: T0 + DAY });
}

const plansWithOrder = fc
  .array(podPlan, { minLength: 1, maxLength: 6 })
  .chain((plans) =>
    fc.tuple(
      fc.constant(plans),
      fc.shuffledSubarray([...plans.keys()], { minLength: plans.length }),
    ),
  );

describe('model properties', () => {
  it('gives the same status whatever order the pods were upserted and fed in', () => {
    fc.assert(
      fc.property(plansWithOrder, ([plans, order]) => {
        const inOrder = statusAfter(plans, [...plans.keys()]);
        const shuffled = statusAfter(plans, order);
        expect(shuffled).toEqual(inOrder);
      }),
      { numRuns: 40 },
    );
  });

  it('never reports a change between a computed status and itself', () => {
    fc.assert(
      fc.property(plansWithOrder, ([plans, order]) => {
        const status = statusAfter(plans, order);
        expect(status).toBeDefined();
        if (status === undefined) return;
        expect(statusChanged(structuredClone(status), status)).toBe(false);
      }),
      { numRuns: 40 },
    );
  });
});
