import { AggregateContainerState } from '@tandem/estimators';
import { ClusterModel } from './cluster-model.js';
import {
  DAY,
  feedSteadyUsage,
  HOUR,
  MIB,
  MINUTE,
  NS,
  podSnapshot,
  selectorFor,
  STEADY_DAY,
  T0,
  vpaObject,
  webModel,
} from './model.fixtures.js';

const cpuSample = (timeMs: number, usage = 100) =>
  ({ timeMs, resource: 'cpu', usage }) as const;

describe('ClusterModel pods and samples', () => {
  it('shares one aggregate between pods with identical labels', () => {
    const model = webModel();
    model.upsertPod(podSnapshot('web-2', { app: 'web' }), T0);
    feedSteadyUsage(model, 'web-1', 'app', { ...STEADY_DAY, minutes: 10 });
    feedSteadyUsage(model, 'web-2', 'app', { ...STEADY_DAY, minutes: 10 });

    expect(model.aggregateCount).toBe(1);
    expect(
      model.aggregatesForVpa('shop/web').get('app')?.totalSamplesCount,
    ).toBe(20);
  });

  it('does not track Pending pods and forgets pods that are no longer listed', () => {
    const model = webModel();
    expect(
      model.upsertPod(
        podSnapshot('web-2', { app: 'web' }, ['app'], { phase: 'Pending' }),
        T0,
      ),
    ).toBe(false);
    expect(model.podKeys()).toEqual(['shop/web-1']);
    model.removePodsNotIn([]);
    expect(model.podKeys()).toEqual([]);
    expect(model.aggregateCount).toBe(1); // until garbage collection
  });

  it('ignores samples of init containers and reports unknown pods and containers', () => {
    const model = new ClusterModel();
    model.upsertPod(
      podSnapshot('web-1', { app: 'web' }, ['app'], { init: ['migrate'] }),
      T0,
    );

    expect(
      model.addSample(NS, 'web-1', 'migrate', cpuSample(T0)),
    ).toMatchObject({
      ok: false,
      error: { kind: 'init-container' },
    });
    expect(model.addSample(NS, 'web-9', 'app', cpuSample(T0))).toMatchObject({
      ok: false,
      error: {
        kind: 'unknown-pod',
        message: 'container app of pod shop/web-9: pod not tracked',
      },
    });
    expect(model.addSample(NS, 'web-1', 'db', cpuSample(T0))).toMatchObject({
      ok: false,
      error: { kind: 'unknown-container' },
    });
    expect(model.addSample(NS, 'web-1', 'app', cpuSample(T0))).toEqual({
      ok: true,
    });
    expect(model.addSample(NS, 'web-1', 'app', cpuSample(T0))).toMatchObject({
      ok: false,
      error: { kind: 'sample-discarded' },
    });
    expect(
      model.addSample(NS, 'web-1', 'app', cpuSample(T0 + 1, 0.5)),
    ).toMatchObject({
      ok: false,
      error: { kind: 'invalid-input' },
    });
  });

  it('moves a pod whose labels changed to the aggregate of its new label set', () => {
    const model = webModel();
    model.addSample(NS, 'web-1', 'app', cpuSample(T0));
    model.upsertPod(
      podSnapshot('web-1', { app: 'web', version: '2' }),
      T0 + HOUR,
    );
    model.addSample(NS, 'web-1', 'app', cpuSample(T0 + HOUR));

    expect(model.aggregateCount).toBe(2);
    expect(
      model.aggregatesForVpa('shop/web').get('app')?.totalSamplesCount,
    ).toBe(2);
  });
});

describe('ClusterModel OOMs (vector 18)', () => {
  /** The memory histogram holding one peak of `bytes`, filed at the end of its window. */
  const singlePeak = (windowEndMs: number, bytes: number) => {
    const expected = new AggregateContainerState(T0);
    expected.addMemoryPeak(windowEndMs, bytes);
    return expected.memoryHistogram.saveCheckpoint();
  };

  it('bumps memory to 1.2 × the tracked request', () => {
    const model = webModel();
    model.upsertPod(
      podSnapshot('web-1', { app: 'web' }, ['app'], {
        memoryRequestBytes: 1000 * MIB,
      }),
      T0,
    );

    // The bytes filed are returned too: upstream's quality metrics observe them.
    expect(model.recordOom(NS, 'web-1', 'app', T0)).toEqual({
      ok: true,
      filedMemoryBytes: 1258291200,
    });
    const merged = model.mergedAggregatesForVpa('shop/web').get('app');
    expect(merged?.memoryHistogram.saveCheckpoint()).toEqual(
      singlePeak(T0 + DAY, 1258291200),
    );
  });

  it('takes a request passed with the OOM over the tracked one (+100 MiB minimum)', () => {
    const model = webModel();
    expect(model.recordOom(NS, 'web-1', 'app', T0, 1 * MIB)).toEqual({
      ok: true,
      filedMemoryBytes: 101 * MIB,
    });
    const merged = model.mergedAggregatesForVpa('shop/web').get('app');
    expect(merged?.memoryHistogram.saveCheckpoint()).toEqual(
      singlePeak(T0 + DAY, 101 * MIB),
    );
  });

  it('returns errors for unknown pods or containers and for stale OOMs', () => {
    const model = webModel();
    model.addSample(NS, 'web-1', 'app', {
      timeMs: T0 + 30 * HOUR,
      resource: 'memory',
      usage: MIB,
    });

    expect(model.recordOom(NS, 'gone', 'app', T0)).toMatchObject({
      ok: false,
      error: { kind: 'unknown-pod' },
    });
    expect(model.recordOom(NS, 'web-1', 'db', T0)).toMatchObject({
      ok: false,
      error: { kind: 'unknown-container' },
    });
    const stale = model.recordOom(NS, 'web-1', 'app', T0);
    expect(stale).toMatchObject({ ok: false, error: { kind: 'stale-oom' } });
    expect(!stale.ok && stale.error.message).toMatch(
      /^container app of pod shop\/web-1: OOM at 2024-01-01T00:00:00.000Z is too old/,
    );
  });
});

describe('ClusterModel checkpoints', () => {
  /** An upstream checkpoint: 24 h of 0.5 core (bucket 25) and 500 MiB (bucket 26). */
  const upstreamCheckpoint = {
    lastUpdateTime: '2024-01-02T00:00:00Z',
    version: 'v3',
    cpuHistogram: {
      referenceTimestamp: '2024-01-02T00:00:00Z',
      bucketWeights: { '25': 10000 },
      totalWeight: 143.9,
    },
    memoryHistogram: {
      referenceTimestamp: '2024-01-02T00:00:00Z',
      bucketWeights: { '26': 10000 },
      totalWeight: 1,
    },
    firstSampleStart: '2024-01-01T00:00:00Z',
    lastSampleStart: '2024-01-01T23:59:00Z',
    totalSamplesCount: 1440,
  };

  it('loads an upstream-shaped v3 checkpoint as the VPA history', () => {
    const model = new ClusterModel();
    model.upsertVpa(vpaObject('web'), selectorFor({ app: 'web' }));

    expect(model.loadCheckpoint('shop/web', 'app', upstreamCheckpoint)).toEqual(
      { ok: true },
    );
    const state = model.aggregatesForVpa('shop/web').get('app');
    expect(state?.totalSamplesCount).toBe(1440);
    expect(state?.cpuHistogram.percentile(0.9)).toBeCloseTo(0.5111, 4);
  });

  it.each([
    [{ ...upstreamCheckpoint, version: 'v2' }, 'status.version'],
    [
      {
        ...upstreamCheckpoint,
        memoryHistogram: { bucketWeights: { abc: 1 }, totalWeight: 1 },
      },
      'status.memoryHistogram.bucketWeights',
    ],
    ['not an object', 'status'],
  ])(
    'refuses a corrupt checkpoint (%#) without changing the model',
    (status, field) => {
      const model = new ClusterModel();
      model.upsertVpa(vpaObject('web'), selectorFor({ app: 'web' }));
      model.loadCheckpoint('shop/web', 'app', upstreamCheckpoint);
      const before = model
        .mergedAggregatesForVpa('shop/web')
        .get('app')
        ?.saveCheckpoint(T0);

      const result = model.loadCheckpoint('shop/web', 'app', status);
      expect(result).toMatchObject({
        ok: false,
        error: { kind: 'corrupt-checkpoint' },
      });
      expect(!result.ok && result.error.message).toContain(
        `checkpoint of VPA shop/web container app: ${field}`,
      );
      expect(
        model.mergedAggregatesForVpa('shop/web').get('app')?.saveCheckpoint(T0),
      ).toEqual(before);
    },
  );

  it('refuses a checkpoint for an unknown VPA', () => {
    expect(
      new ClusterModel().loadCheckpoint('shop/none', 'app', upstreamCheckpoint),
    ).toMatchObject({
      ok: false,
      error: { kind: 'unknown-vpa' },
    });
  });

  it('keeps the loaded history when the VPA selector changes (unlike upstream)', () => {
    const model = new ClusterModel();
    model.upsertVpa(vpaObject('web'), selectorFor({ app: 'web' }));
    model.loadCheckpoint('shop/web', 'app', upstreamCheckpoint);
    model.upsertVpa(vpaObject('web'), selectorFor({ app: 'web-v2' }));

    expect(
      model.aggregatesForVpa('shop/web').get('app')?.totalSamplesCount,
    ).toBe(1440);
    model.removeVpasNotIn([]);
    expect(model.vpaKeys()).toEqual([]);
  });
});

describe('ClusterModel garbage collection', () => {
  it('removes expired aggregates (vector 24 thresholds) and empty ones nothing feeds', () => {
    const model = webModel();
    model.upsertPod(podSnapshot('gone-1', { app: 'gone' }), T0);
    model.upsertPod(podSnapshot('idle-1', { app: 'idle' }), T0);
    model.addSample(NS, 'web-1', 'app', cpuSample(T0));
    model.addSample(NS, 'gone-1', 'app', cpuSample(T0));
    model.removePodsNotIn(['shop/web-1', 'shop/idle-1']);

    expect(model.garbageCollect(T0 + 7 * DAY)).toBe(0);
    model.removePodsNotIn(['shop/web-1']);
    expect(model.garbageCollect(T0 + 7 * DAY)).toBe(1); // idle: empty, pod gone
    expect(model.garbageCollect(T0 + 8 * DAY)).toBe(2); // web and gone: expired
    expect(model.aggregateCount).toBe(0);
  });

  it('keeps empty aggregates of live pods, and of finished pods a VPA still selects', () => {
    const model = webModel();
    model.upsertPod(
      podSnapshot('job-1', { app: 'job' }, ['app'], { phase: 'Succeeded' }),
      T0,
    );
    model.upsertPod(
      podSnapshot('web-2', { app: 'web', v: '2' }, ['app'], {
        phase: 'Failed',
      }),
      T0,
    );

    expect(model.garbageCollect(T0 + HOUR)).toBe(1); // job-1: finished, no VPA
    expect(model.aggregateCount).toBe(2);
  });

  it('gives a live container a fresh aggregate after its old one was collected', () => {
    const model = webModel();
    model.addSample(NS, 'web-1', 'app', cpuSample(T0));
    model.garbageCollect(T0 + 8 * DAY);
    model.upsertPod(podSnapshot('web-1', { app: 'web' }), T0 + 8 * DAY);
    model.addSample(NS, 'web-1', 'app', cpuSample(T0 + 8 * DAY));

    expect(
      model.aggregatesForVpa('shop/web').get('app')?.totalSamplesCount,
    ).toBe(1);
  });

  it('skips an unchanged snapshot handed in again, except after garbage collection', () => {
    const model = new ClusterModel();
    model.upsertVpa(vpaObject('web'), selectorFor({ app: 'web' }));
    const snapshot = podSnapshot('web-1', { app: 'web' });
    model.upsertPod(snapshot, T0);
    model.addSample(NS, 'web-1', 'app', cpuSample(T0));
    // The same object again keeps the container's bookkeeping: a repeated sample is refused.
    expect(model.upsertPod(snapshot, T0 + DAY)).toBe(true);
    expect(model.addSample(NS, 'web-1', 'app', cpuSample(T0))).toMatchObject({
      ok: false,
      error: { kind: 'sample-discarded' },
    });
    // After the aggregate was collected, the same object still gets a fresh one.
    model.garbageCollect(T0 + 8 * DAY);
    expect(model.upsertPod(snapshot, T0 + 8 * DAY)).toBe(true);
    model.addSample(NS, 'web-1', 'app', cpuSample(T0 + 8 * DAY));
    expect(
      model.aggregatesForVpa('shop/web').get('app')?.totalSamplesCount,
    ).toBe(1);
  });
});

describe('ClusterModel memory saver', () => {
  it('tracks only pods some VPA of their namespace selects', () => {
    const model = webModel({ memorySaver: true });
    expect(model.upsertPod(podSnapshot('db-1', { app: 'db' }), T0)).toBe(false);
    expect(
      model.upsertPod(
        { ...podSnapshot('web-x', { app: 'web' }), namespace: 'other' },
        T0,
      ),
    ).toBe(false);
    expect(model.upsertPod(podSnapshot('web-2', { app: 'web' }), T0)).toBe(
      true,
    );
    expect(model.podKeys().sort()).toEqual(['shop/web-1', 'shop/web-2']);
    expect(model.addSample(NS, 'db-1', 'app', cpuSample(T0))).toMatchObject({
      ok: false,
    });
  });

  it('stops tracking a pod once no VPA selects it', () => {
    const model = webModel({ memorySaver: true });
    model.removeVpasNotIn([]);
    expect(
      model.upsertPod(podSnapshot('web-1', { app: 'web' }), T0 + MINUTE),
    ).toBe(false);
    expect(model.podKeys()).toEqual([]);
  });

  it('stops tracking an unchanged pod once no VPA selects it', () => {
    const model = webModel({ memorySaver: true });
    const pod = podSnapshot('web-2', { app: 'web' });
    expect(model.upsertPod(pod, T0)).toBe(true);
    expect(model.upsertPod(pod, T0 + MINUTE)).toBe(true);
    model.removeVpasNotIn([]);
    expect(model.upsertPod(pod, T0 + 2 * MINUTE)).toBe(false);
    expect(model.podKeys()).toEqual(['shop/web-1']);
  });

  it('tracks an unchanged pod it left untracked once a VPA comes to select it', () => {
    const model = webModel({ memorySaver: true });
    const pod = podSnapshot('db-1', { app: 'db' });
    const pending = podSnapshot('db-2', { app: 'db' }, ['app'], {
      phase: 'Pending',
    });
    expect(model.upsertPod(pod, T0)).toBe(false);
    expect(model.upsertPod(pod, T0 + MINUTE)).toBe(false);
    expect(model.upsertPod(pending, T0)).toBe(false);
    model.upsertVpa(vpaObject('db'), selectorFor({ app: 'db' }));
    expect(model.upsertPod(pod, T0 + 2 * MINUTE)).toBe(true);
    expect(model.upsertPod(pending, T0 + 2 * MINUTE)).toBe(false);
    expect(model.podKeys().sort()).toEqual(['shop/db-1', 'shop/web-1']);
  });
});

describe('ClusterModel VPAs', () => {
  it('refuses a VPA without namespace or name', () => {
    const vpa = vpaObject('web');
    expect(
      new ClusterModel().upsertVpa({ ...vpa, metadata: {} }, selectorFor({})),
    ).toMatchObject({
      ok: false,
      error: { kind: 'invalid-input' },
    });
  });

  it('counts matching pods only in the VPA namespace', () => {
    const model = webModel();
    model.upsertPod(
      { ...podSnapshot('web-1', { app: 'web' }), namespace: 'other' },
      T0,
    );
    expect(model.matchingPodCount('shop/web')).toBe(1);
    expect(model.matchingPodCount('shop/none')).toBe(0);
  });
});
