import fc from 'fast-check';
import { nativeReplicas, type HpaPod } from './native-replicas.js';

const running = (request: number, usage: number | undefined): HpaPod => ({
  pending: false,
  ready: true,
  request,
  usage,
});

const base = {
  resource: 'cpu' as const,
  minReplicas: 1,
  maxReplicas: 100,
  targetUtilization: 60,
};

describe('nativeReplicas', () => {
  // The worked example of the HPA/VPA drift: a 60 % target, 6,000m of load, and the VPA
  // lowering requests from 1,000m to 690m, then to 460m.
  it.each([
    { pods: 10, request: 1000, usage: 600, replicas: 10, utilization: 60 },
    { pods: 10, request: 690, usage: 600, replicas: 15, utilization: 86 },
    { pods: 15, request: 690, usage: 400, replicas: 15, utilization: 57 },
    { pods: 15, request: 460, usage: 400, replicas: 22, utilization: 86 },
  ])(
    '$pods pods using $usage of $request: $replicas replicas at $utilization %',
    ({ pods, request, usage, replicas, utilization }) => {
      expect(
        nativeReplicas({
          ...base,
          currentReplicas: pods,
          pods: Array.from({ length: pods }, () => running(request, usage)),
        }),
      ).toEqual({ replicas, utilization });
    },
  );

  it('keeps the current count within the tolerance, and leaves it past it', () => {
    const at = (usage: number) =>
      nativeReplicas({
        ...base,
        targetUtilization: 50,
        currentReplicas: 4,
        pods: Array.from({ length: 4 }, () => running(1000, usage)),
      });
    expect(at(540)).toEqual({ replicas: 4, utilization: 54 });
    // 55 / 50 is 1.1 in decimal but 1 - 1.1 is -0.10000000000000009 in binary, in Go as
    // here: just past the tolerance.
    expect(at(550)).toEqual({ replicas: 5, utilization: 55 });
    expect(at(560)).toEqual({ replicas: 5, utilization: 56 });
    expect(at(450)).toEqual({ replicas: 4, utilization: 45 });
    expect(at(440)).toEqual({ replicas: 4, utilization: 44 });
    expect(at(200)).toEqual({ replicas: 2, utilization: 20 });
  });

  it('clamps to the HPA bounds', () => {
    const pods = Array.from({ length: 4 }, () => running(100, 400));
    expect(
      nativeReplicas({ ...base, currentReplicas: 4, pods, maxReplicas: 6 }),
    ).toMatchObject({ replicas: 6 });
    const idle = Array.from({ length: 4 }, () => running(100, 1));
    expect(
      nativeReplicas({
        ...base,
        currentReplicas: 4,
        pods: idle,
        minReplicas: 3,
      }),
    ).toMatchObject({ replicas: 3 });
  });

  it('on the way down counts a pod without metrics at its whole request', () => {
    // 3 measured pods at 20 %, one missing at 100 %: 40 % over 4 pods, target 60.
    const pods = [
      ...Array.from({ length: 3 }, () => running(1000, 200)),
      running(1000, undefined),
    ];
    expect(nativeReplicas({ ...base, currentReplicas: 4, pods })).toEqual({
      replicas: 3,
      utilization: 20,
    });
  });

  it('on the way up counts unready and missing pods at zero, and holds when that flips the direction', () => {
    const unready: HpaPod = {
      pending: false,
      ready: false,
      request: 1000,
      usage: 0,
    };
    // 2 ready pods at 90 %, 2 unready: 45 % over 4 pods is below the target: hold.
    expect(
      nativeReplicas({
        ...base,
        currentReplicas: 4,
        pods: [running(1000, 900), running(1000, 900), unready, unready],
      }),
    ).toEqual({ replicas: 4, utilization: 90 });
    // 3 ready at 120 %, 1 unready: 90 % over 4 = ratio 1.5: ceil(1.5 × 4) = 6.
    expect(
      nativeReplicas({
        ...base,
        currentReplicas: 4,
        pods: [
          running(1000, 1200),
          running(1000, 1200),
          running(1000, 1200),
          unready,
        ],
      }),
    ).toEqual({ replicas: 6, utilization: 120 });
  });

  it('counts a not-Ready pod with metrics for memory, not for CPU', () => {
    const notReady: HpaPod = {
      pending: false,
      ready: false,
      request: 1000,
      usage: 1000,
    };
    const pods = [running(1000, 1000), notReady];
    expect(
      nativeReplicas({ ...base, resource: 'memory', currentReplicas: 2, pods }),
    ).toEqual({ replicas: 4, utilization: 100 });
  });

  it('says why when it cannot tell', () => {
    expect(
      nativeReplicas({
        ...base,
        currentReplicas: 2,
        pods: [running(1000, undefined)],
      }),
    ).toEqual({
      unknown: 'no metrics for the targeted pods (they may be unready)',
    });
    expect(
      nativeReplicas({ ...base, currentReplicas: 1, pods: [running(0, 5)] }),
    ).toEqual({ unknown: 'the pods declare no request for the resource' });
    expect(nativeReplicas({ ...base, currentReplicas: 0, pods: [] })).toEqual({
      unknown: 'the workload is scaled to zero',
    });
  });

  it('with every pod ready and measured, proposes ceil(utilization / target × pods) outside the tolerance, within the bounds', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            request: fc.integer({ min: 1, max: 4000 }),
            usage: fc.integer({ min: 0, max: 8000 }),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        fc.integer({ min: 10, max: 150 }),
        (pods, target) => {
          const result = nativeReplicas({
            ...base,
            targetUtilization: target,
            currentReplicas: pods.length,
            pods: pods.map((pod) => running(pod.request, pod.usage)),
          });
          if (!('replicas' in result)) return false;
          const usage = pods.reduce((sum, pod) => sum + pod.usage, 0);
          const request = pods.reduce((sum, pod) => sum + pod.request, 0);
          const utilization = Math.trunc((usage * 100) / request);
          const ratio = utilization / target;
          const raw =
            Math.abs(1 - ratio) <= 0.1
              ? pods.length
              : Math.ceil(ratio * pods.length);
          return (
            result.replicas === Math.min(Math.max(raw, 1), 100) &&
            result.utilization === utilization
          );
        },
      ),
    );
  });
});
