import type { V1Pod } from '@kubernetes/client-node';
import { ContainerState, AggregateContainerState } from '@tandem/estimators';
import type { EventRecorder } from '@tandem/kube';
import { Registry } from '@tandem/telemetry';
import fc from 'fast-check';
import { inMemoryVpaStore } from '../checkpoints/in-memory-vpa-store.js';
import type { ObservedOom } from '../model/index.js';
import { MIB, NS, vpaObject } from '../model/model.fixtures.js';
import { recommenderMetrics } from '../recommender-metrics.js';
import {
  type CycleContext,
  defaultCycleSettings,
  freshCycleState,
  OOM_AT_MAX_ALLOWED_EVENT_INTERVAL_MS,
} from './cycle-context.js';
import { oneVpaInputs, quietObservability } from './cycle.fixtures.js';
import { runCycle } from './cycle.js';
import { EventRateLimit } from './event-rate-limit.js';
import { recordObservedOom } from './oom-recording.js';

const START_MS = Date.parse('2026-11-25T00:00:00Z');
const SELECTED = { app: 'web' };
const MAX_ALLOWED = 300 * MIB;
const REQUEST = 280 * MIB;

/** A VPA capping `app` at 300Mi over pod web-1 (request 280Mi), every input in memory. */
function cycles(options: { capBumpUp: boolean }) {
  const store = inMemoryVpaStore([
    vpaObject('web', {
      policies: [
        { containerName: 'app', maxAllowed: { memory: `${MAX_ALLOWED}` } },
      ],
    }),
  ]);
  const registry = new Registry();
  const pods: V1Pod[] = [
    {
      metadata: { namespace: NS, name: 'web-1', labels: SELECTED },
      spec: {
        containers: [
          { name: 'app', resources: { requests: { memory: `${REQUEST}` } } },
        ],
      },
      status: { phase: 'Running' },
    },
  ];
  let nowMs = START_MS;
  let memoryBytes = 0;
  const ooms: ObservedOom[] = [];
  const events: Parameters<EventRecorder>[] = [];
  const context: CycleContext = {
    settings: defaultCycleSettings({
      checkpointsEnabled: false,
      capOomBumpUpAtMaxAllowed: options.capBumpUp,
    }),
    inputs: oneVpaInputs({
      store,
      pods: () => pods,
      selector: SELECTED,
      usages: () => [
        {
          namespace: NS,
          pod: 'web-1',
          container: 'app',
          timeMs: nowMs,
          cpuMillicores: 100,
          memoryBytes,
        },
      ],
      ooms,
      clock: () => nowMs,
    }),
    store,
    observability: {
      ...quietObservability(recommenderMetrics(registry)),
      recordEvent: (...event) => events.push(event),
    },
    state: freshCycleState({ model: {} }, START_MS),
  };
  return {
    /** The OOMAtMaxAllowed events written (the recommendation events are left out). */
    get events() {
      return events.filter(([, , reason]) => reason === 'OOMAtMaxAllowed');
    },
    /** One cycle `minutes` after the previous one, with this memory usage. */
    async run(usageBytes: number, minutes = 1) {
      memoryBytes = usageBytes;
      nowMs += minutes * 60_000;
      expect((await runCycle(context, nowMs)).errors).toBe(0);
    },
    /** An OOM kill of web-1's `app` at its request, taken by the next cycle. */
    oomKill() {
      ooms.push({
        namespace: NS,
        podName: 'web-1',
        containerName: 'app',
        timeMs: nowMs + 30_000,
        memoryBytes: REQUEST,
      });
    },
    /** An OOM kill of web-1's `app` at its request, recorded now: what the model filed. */
    recordOomNow() {
      const result = recordObservedOom(
        context,
        {
          namespace: NS,
          podName: 'web-1',
          containerName: 'app',
          timeMs: nowMs,
          memoryBytes: REQUEST,
        },
        nowMs,
      );
      return result.ok ? result.filedMemoryBytes : result.error.message;
    },
    async oomAtCapCount() {
      const metric = await registry
        .getSingleMetric('tandem_recommender_oom_at_max_allowed_total')
        ?.get();
      return metric?.values.find(
        (value) =>
          value.labels['namespace'] === NS &&
          value.labels['vpa'] === 'web' &&
          value.labels['container'] === 'app',
      )?.value;
    },
    target() {
      return store.listVpas()[0]?.status?.recommendation
        ?.containerRecommendations?.[0];
    },
  };
}

describe('an OOM kill at maxAllowed (kubernetes/autoscaler#9521)', () => {
  it('is counted at each kill and reported once per container per interval', async () => {
    const loop = cycles({ capBumpUp: false });
    await loop.run(1024 * MIB);
    expect(loop.target()?.target?.['memory']).toBe(`${MAX_ALLOWED}`);
    loop.oomKill();
    await loop.run(1024 * MIB);
    loop.oomKill();
    await loop.run(1024 * MIB);
    expect(await loop.oomAtCapCount()).toBe(2);
    expect(loop.events).toEqual([
      [
        expect.objectContaining({ kind: 'VerticalPodAutoscaler', name: 'web' }),
        'Warning',
        'OOMAtMaxAllowed',
        "Container app of pod web-1 was OOM-killed with a memory request of 280Mi; its memory target 300Mi is already at maxAllowed 300Mi, so the recommender cannot raise it: raise maxAllowed memory (or the --container-recommendation-max-allowed-memory cap) or lower the container's memory use",
      ],
    ]);
    loop.oomKill();
    await loop.run(1024 * MIB, OOM_AT_MAX_ALLOWED_EVENT_INTERVAL_MS / 60_000);
    expect(await loop.oomAtCapCount()).toBe(3);
    expect(loop.events).toHaveLength(2);
  });

  it('is not reported while the target is below maxAllowed', async () => {
    const loop = cycles({ capBumpUp: false });
    await loop.run(50 * MIB);
    loop.oomKill();
    await loop.run(50 * MIB);
    expect(await loop.oomAtCapCount()).toBeUndefined();
    expect(loop.events).toEqual([]);
  });
});

describe('--cap-oom-bump-up-at-max-allowed', () => {
  it.each([
    // Upstream's bump: max(280Mi + 100Mi, 280Mi × 1.2) = 380Mi, past the 300Mi cap.
    [false, 380 * MIB],
    [true, MAX_ALLOWED],
  ])('on=%s files the OOM sample at %d bytes', async (capBumpUp, filed) => {
    const loop = cycles({ capBumpUp });
    await loop.run(50 * MIB);
    expect(loop.recordOomNow()).toBe(filed);
  });
});

describe('ContainerState.recordOom with a cap', () => {
  it('files between what was used and max(used, cap), and upstream’s bump under a high cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 64 * 1024 }),
        fc.integer({ min: 0, max: 64 * 1024 }),
        (requestMib, capMib) => {
          const bump = { oomBumpUpRatio: 1.2, oomMinBumpUpBytes: 100 * MIB };
          const fresh = () =>
            new ContainerState(new AggregateContainerState(START_MS));
          const capped = fresh().recordOom(
            START_MS,
            requestMib * MIB,
            bump,
            capMib * MIB,
          );
          const upstream = fresh().recordOom(START_MS, requestMib * MIB, bump);
          expect(capped).toBeGreaterThanOrEqual(requestMib * MIB);
          expect(capped).toBeLessThanOrEqual(
            Math.max(requestMib, capMib) * MIB,
          );
          if (upstream !== undefined && capMib * MIB >= upstream)
            expect(capped).toBe(upstream);
        },
      ),
    );
  });
});

describe('EventRateLimit', () => {
  it('lets a key pass once per interval and forgets keys older than it', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom('a', 'b', 'c'),
            fc.integer({ min: 0, max: 100 }),
          ),
          { maxLength: 60 },
        ),
        (steps) => {
          const limit = new EventRateLimit(50);
          const lastPass = new Map<string, number>();
          let nowMs = 0;
          for (const [key, advance] of steps) {
            nowMs += advance;
            const last = lastPass.get(key);
            const expected = last === undefined || nowMs - last >= 50;
            expect(limit.allow(key, nowMs)).toBe(expected);
            if (expected) lastPass.set(key, nowMs);
            const recent = [...lastPass.values()].filter(
              (atMs) => atMs > nowMs - 50,
            ).length;
            expect(limit.size).toBeLessThanOrEqual(Math.max(recent, 1));
          }
        },
      ),
    );
  });
});
