import fc from 'fast-check';
import { STRATEGY_ANNOTATION } from '@tandem/strategies';
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
import { computeVpaStatus } from './vpa-status.js';

interface Reading {
  readonly pod: string;
  readonly container: string;
  readonly minute: number;
  readonly cpu: number;
  readonly memory: number;
}

/** Readings as metrics.k8s.io may hand them over, the bad ones too. */
const reading: fc.Arbitrary<Reading> = fc.record({
  // web-9 is not tracked; `migrate` is an init container, `db` no container of theirs.
  pod: fc.constantFrom('web-1', 'web-2', 'web-9'),
  container: fc.constantFrom('app', 'log', 'migrate', 'db'),
  // Repeated and out-of-order minutes are discarded by the container.
  minute: fc.integer({ min: 0, max: 30 }),
  cpu: fc.oneof(
    fc.integer({ min: -5, max: 4000 }),
    fc.constantFrom(0.5, Number.NaN),
  ),
  memory: fc.oneof(
    fc.integer({ min: -5, max: 4096 }).map((mib) => mib * MIB),
    fc.constant(1.5),
  ),
});

/** A VPA over two pods, with upstream's strategy or tandem's (a history clock and own state). */
function model(strategy: string | undefined): ClusterModel {
  const built = new ClusterModel();
  const vpa = vpaObject('web');
  if (strategy !== undefined)
    vpa.metadata = {
      ...vpa.metadata,
      annotations: { [STRATEGY_ANNOTATION]: strategy },
    };
  built.upsertVpa(vpa, selectorFor({ app: 'web' }));
  for (const name of ['web-1', 'web-2'])
    built.upsertPod(
      podSnapshot(name, { app: 'web' }, ['app', 'log'], { init: ['migrate'] }),
      T0,
    );
  return built;
}

describe('ClusterModel.addUsage', () => {
  it('does what addSample does for the CPU and then the memory sample of a reading', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(undefined, 'upstream', 'tandem'),
        fc.array(reading, { maxLength: 40 }),
        (strategy, readings) => {
          const byUsage = model(strategy);
          const bySample = model(strategy);
          for (const { pod, container, minute, cpu, memory } of readings) {
            const timeMs = T0 + minute * MINUTE;
            const used = byUsage.addUsage(
              NS,
              pod,
              container,
              timeMs,
              cpu,
              memory,
            );
            const cpuResult = bySample.addSample(NS, pod, container, {
              timeMs,
              resource: 'cpu',
              usage: cpu,
            });
            const memoryResult = bySample.addSample(NS, pod, container, {
              timeMs,
              resource: 'memory',
              usage: memory,
            });
            expect(used.cpu).toBe(cpuResult.ok);
            expect(used.memory).toBe(memoryResult.ok);
            expect(used.aggregate).toBe(
              byUsage.aggregateOfContainer(NS, pod, container),
            );
          }
          const nowMs = T0 + DAY;
          expect(computeVpaStatus(byUsage, 'shop/web', { nowMs })).toEqual(
            computeVpaStatus(bySample, 'shop/web', { nowMs }),
          );
          expect(checkpointsForVpa(byUsage, 'shop/web', nowMs)).toEqual(
            checkpointsForVpa(bySample, 'shop/web', nowMs),
          );
        },
      ),
      { numRuns: 60 },
    );
  });
});
