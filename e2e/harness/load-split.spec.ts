import type { V1Pod } from '@kubernetes/client-node';
import {
  checkLoad,
  DEFAULT_POD_MEMORY_BYTES,
  hasAnnotations,
  loadValueAt,
  planLoad,
  planPodUsage,
  podView,
  splitByWeights,
  splitEvenly,
  usageAnnotations,
  type PodView,
} from './load-split.ts';

const MiB = 1024 * 1024;

function pod(name: string, ready = true, containers = ['app']): PodView {
  return { name, ready, containers, annotations: {} };
}

function cpuOf(plan: Map<string, { cpuMillicores: number }>) {
  return Object.fromEntries(
    [...plan].map(([name, usage]) => [name, usage.cpuMillicores]),
  );
}

describe('splitEvenly', () => {
  it('splits a total into whole parts that differ by at most 1 and sum to it', () => {
    expect(splitEvenly(600, 2, 1)).toEqual([300, 300]);
    expect(splitEvenly(100, 3, 1)).toEqual([34, 33, 33]);
    for (let parts = 1; parts <= 7; parts += 1) {
      for (let total = parts; total <= 1000; total += 13) {
        const split = splitEvenly(total, parts, 1);
        expect(split.reduce((sum, part) => sum + part, 0)).toBe(total);
        expect(Math.max(...split) - Math.min(...split)).toBeLessThanOrEqual(1);
      }
    }
  });

  it('never goes below the floor, even when the total is too small for it', () => {
    expect(splitEvenly(2, 3, 1)).toEqual([1, 1, 1]);
    expect(splitEvenly(0, 2, 1)).toEqual([1, 1]);
  });

  it('has nothing to split over no parts', () => {
    expect(splitEvenly(600, 0, 1)).toEqual([]);
  });
});

describe('splitByWeights', () => {
  it('splits by weight, leftover units to the largest fractions', () => {
    expect(splitByWeights(100, [2, 1], 1)).toEqual([67, 33]);
    expect(splitByWeights(10, [1, 1, 1], 1)).toEqual([4, 3, 3]);
  });

  it('gives a zero weight the floor', () => {
    expect(splitByWeights(300, [1, 0], 1)).toEqual([300, 1]);
    expect(splitByWeights(300, [0, 0], 1)).toEqual([1, 1]);
  });
});

describe('loadValueAt', () => {
  it('evaluates a profile at the elapsed time, as a whole number >= 0', () => {
    expect(loadValueAt(250.4, 0)).toBe(250);
    expect(loadValueAt((elapsed) => elapsed / 1000, 1500)).toBe(2);
    expect(loadValueAt(() => -5, 0)).toBe(0);
    expect(loadValueAt(() => Number.NaN, 0)).toBe(0);
  });
});

describe('checkLoad', () => {
  it('accepts constants, profiles and shares', () => {
    const load = {
      cpuMillicores: () => 1,
      memoryBytes: 5,
      containerShares: { app: 1, sidecar: 0 },
    };
    expect(checkLoad(load)).toBe(load);
  });

  it('rejects negative or non-finite constants and shares that share nothing', () => {
    expect(() => checkLoad({ cpuMillicores: -1 })).toThrow(
      'cpuMillicores must be a finite number >= 0, got -1',
    );
    expect(() =>
      checkLoad({ cpuMillicores: 1, memoryBytes: Number.POSITIVE_INFINITY }),
    ).toThrow('memoryBytes must be');
    expect(() =>
      checkLoad({ cpuMillicores: 1, containerShares: { app: -1 } }),
    ).toThrow('container shares must be finite and >= 0');
    expect(() =>
      checkLoad({ cpuMillicores: 1, containerShares: { app: 0 } }),
    ).toThrow('at least one container share must be > 0');
  });
});

describe('podView', () => {
  const base = {
    metadata: { name: 'web-1', annotations: { a: 'b' } },
    spec: { containers: [{ name: 'app' }, { name: 'sidecar' }] },
  };
  const withStatus = (status: V1Pod['status'], deleting = false): V1Pod => ({
    ...base,
    metadata: {
      ...base.metadata,
      ...(deleting ? { deletionTimestamp: new Date() } : {}),
    },
    status,
  });
  const readyCondition = { type: 'Ready', status: 'True' };

  it('counts a Running pod with Ready=True', () => {
    expect(
      podView(withStatus({ phase: 'Running', conditions: [readyCondition] })),
    ).toEqual({
      name: 'web-1',
      ready: true,
      containers: ['app', 'sidecar'],
      annotations: { a: 'b' },
    });
  });

  it('keeps a starting pod, not counted yet', () => {
    expect(podView(withStatus({ phase: 'Pending' }))?.ready).toBe(false);
    expect(
      podView(
        withStatus({
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'False' }],
        }),
      )?.ready,
    ).toBe(false);
  });

  it('drops a deleting or finished pod', () => {
    const running = { phase: 'Running', conditions: [readyCondition] };
    expect(podView(withStatus(running, true))).toBeUndefined();
    expect(podView(withStatus({ phase: 'Succeeded' }))).toBeUndefined();
    expect(podView(withStatus({ phase: 'Failed' }))).toBeUndefined();
  });
});

describe('planPodUsage', () => {
  it('splits the total CPU evenly over the Ready pods', () => {
    const load = { cpuMillicores: 600 };
    expect(cpuOf(planPodUsage(load, 0, [pod('a'), pod('b')]))).toEqual({
      a: 300,
      b: 300,
    });
    expect(
      cpuOf(planPodUsage(load, 0, [pod('c'), pod('b'), pod('a')])),
    ).toEqual({ a: 200, b: 200, c: 200 });
  });

  it('puts the leftover millicores on the first pods by name, summing to the total', () => {
    const plan = planPodUsage({ cpuMillicores: 100 }, 0, [
      pod('c'),
      pod('a'),
      pod('b'),
    ]);
    expect(cpuOf(plan)).toEqual({ a: 34, b: 33, c: 33 });
  });

  it('gives a starting pod the share it will have once counted, without taking from the Ready ones', () => {
    const plan = planPodUsage({ cpuMillicores: 600 }, 0, [
      pod('a'),
      pod('b'),
      pod('c', false),
    ]);
    expect(cpuOf(plan)).toEqual({ a: 300, b: 300, c: 200 });
    const onlyStarting = planPodUsage({ cpuMillicores: 600 }, 0, [
      pod('a', false),
      pod('b', false),
    ]);
    expect(cpuOf(onlyStarting)).toEqual({ a: 300, b: 300 });
  });

  it('gives each pod a fixed memory unless the load names a total', () => {
    const pods = [pod('a'), pod('b')];
    expect(
      [...planPodUsage({ cpuMillicores: 10 }, 0, pods).values()].map(
        (usage) => usage.memoryBytes,
      ),
    ).toEqual([DEFAULT_POD_MEMORY_BYTES, DEFAULT_POD_MEMORY_BYTES]);
    expect(
      [
        ...planPodUsage(
          { cpuMillicores: 10, memoryBytes: 300 * MiB },
          0,
          pods,
        ).values(),
      ].map((usage) => usage.memoryBytes),
    ).toEqual([150 * MiB, 150 * MiB]);
  });

  it('evaluates a profile at the elapsed time, and floors a zero load at 1m / 1Mi', () => {
    const load = {
      cpuMillicores: (elapsed: number) => (elapsed < 1000 ? 0 : 400),
      memoryBytes: 0,
    };
    expect(planPodUsage(load, 0, [pod('a')]).get('a')).toEqual({
      cpuMillicores: 1,
      memoryBytes: MiB,
    });
    expect(planPodUsage(load, 1000, [pod('a')]).get('a')?.cpuMillicores).toBe(
      400,
    );
  });
});

describe('usageAnnotations', () => {
  const usage = { cpuMillicores: 300, memoryBytes: 64 * MiB };

  it("uses kwok's pod-wide annotation by default", () => {
    expect(usageAnnotations(usage, pod('a'))).toEqual({
      'kwok.x-k8s.io/usage-cpu': '300m',
      'kwok.x-k8s.io/usage-memory': String(64 * MiB),
    });
  });

  it('overwrites per-container annotations a pod already has, as they would win', () => {
    const annotated = {
      containers: ['app'],
      annotations: {
        'tandem.dev/usage-cpu.app': '5m',
        'tandem.dev/usage-memory.app': '5Mi',
        other: 'kept as is',
      },
    };
    expect(usageAnnotations(usage, annotated)).toEqual({
      'kwok.x-k8s.io/usage-cpu': '300m',
      'kwok.x-k8s.io/usage-memory': String(64 * MiB),
      'tandem.dev/usage-cpu.app': '300m',
      'tandem.dev/usage-memory.app': String(64 * MiB),
    });
  });

  it('splits by container share; an unshared or unnamed container idles at the floor', () => {
    const annotations = usageAnnotations(
      usage,
      pod('a', true, ['app', 'sidecar', 'istio-proxy']),
      { app: 1, sidecar: 0 },
    );
    expect(annotations).toEqual({
      'kwok.x-k8s.io/usage-cpu': '1m',
      'kwok.x-k8s.io/usage-memory': String(MiB),
      'tandem.dev/usage-cpu.app': '300m',
      'tandem.dev/usage-memory.app': String(64 * MiB),
      'tandem.dev/usage-cpu.sidecar': '1m',
      'tandem.dev/usage-memory.sidecar': String(MiB),
      'tandem.dev/usage-cpu.istio-proxy': '1m',
      'tandem.dev/usage-memory.istio-proxy': String(MiB),
    });
  });

  it('splits a pod between sharing containers', () => {
    const annotations = usageAnnotations(
      usage,
      pod('a', true, ['app', 'sidecar']),
      { app: 3, sidecar: 1 },
    );
    expect(annotations['tandem.dev/usage-cpu.app']).toBe('225m');
    expect(annotations['tandem.dev/usage-cpu.sidecar']).toBe('75m');
  });
});

describe('hasAnnotations', () => {
  it('holds when every wanted annotation is there with the same value', () => {
    expect(hasAnnotations({ a: '1', b: '2' }, { a: '1' })).toBe(true);
    expect(hasAnnotations({ a: '1' }, { a: '2' })).toBe(false);
    expect(hasAnnotations({}, { a: '1' })).toBe(false);
  });
});

describe('planLoad', () => {
  it('plans usage and annotations for every pod', () => {
    const plans = planLoad({ cpuMillicores: 500 }, 0, [pod('a'), pod('b')]);
    expect(plans.get('b')).toEqual({
      usage: { cpuMillicores: 250, memoryBytes: DEFAULT_POD_MEMORY_BYTES },
      annotations: {
        'kwok.x-k8s.io/usage-cpu': '250m',
        'kwok.x-k8s.io/usage-memory': String(DEFAULT_POD_MEMORY_BYTES),
      },
    });
  });
});
