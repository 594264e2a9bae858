import fc from 'fast-check';
import {
  parseBoostAnnotation,
  parseQuantity,
  Quantity,
  type StartupBoost,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { admit } from './admit.js';
import {
  candidate,
  containerWith,
  contextWith,
  patched,
  podReview,
  podWith,
  vpaWith,
  type VpaOptions,
} from './admission.fixtures.js';
import type { AdmissionResult } from './admission-types.js';
import { boostedCpu } from './startup-boost.js';

const milli = (text: string) => parseQuantity(text).milliValue();
const GATE_ON = { CPUStartupBoost: true };

function boostedVpa(
  recommendation: Record<string, string> | undefined,
  boost: StartupBoost,
  options: VpaOptions & { podLevel?: boolean } = {},
): VerticalPodAutoscaler {
  const vpa = vpaWith(
    recommendation && [{ containerName: 'app', target: recommendation }],
    options,
  );
  if (options.podLevel !== false) vpa.spec.startupBoost = boost;
  return vpa;
}

async function admitWith(
  pod: Record<string, unknown>,
  vpa: VerticalPodAutoscaler,
  extra: Partial<ReturnType<typeof contextWith>> = {},
  gates: Record<string, boolean> = GATE_ON,
): Promise<AdmissionResult> {
  return admit(podReview(pod), {
    ...contextWith({ vpas: [candidate(vpa)], featureGates: gates }),
    ...extra,
  });
}

function containerOf(pod: Record<string, unknown>, index = 0) {
  return (pod['spec'] as { containers: { resources?: unknown }[] }).containers[
    index
  ]?.resources;
}

function annotationsOf(pod: Record<string, unknown>): Record<string, string> {
  return (
    (pod['metadata'] as { annotations?: Record<string, string> }).annotations ??
    {}
  );
}

const byFactor = (factor: number, durationSeconds?: number): StartupBoost => ({
  cpu: { type: 'Factor', factor, durationSeconds },
});
const byQuantity = (quantity: string): StartupBoost => ({
  cpu: { type: 'Quantity', quantity },
});

describe('boostedCpu', () => {
  const base = (text: string) => parseQuantity(text);

  it('multiplies by the factor, truncating to the millicore, or adds the quantity', () => {
    expect(
      boostedCpu(base('333m'), { type: 'Factor', factor: 3 }, {}).toString(),
    ).toBe('999m');
    expect(
      boostedCpu(
        base('250m'),
        { type: 'Quantity', quantity: '1500m' },
        {},
      ).toString(),
    ).toBe('1750m');
  });

  it('caps at --max-allowed-cpu-boost, and a zero cap caps nothing', () => {
    const cap = { maxAllowedCpuBoost: base('2') };
    expect(
      boostedCpu(base('1500m'), { type: 'Factor', factor: 2 }, cap).toString(),
    ).toBe('2');
    expect(
      boostedCpu(
        base('1500m'),
        { type: 'Factor', factor: 2 },
        { maxAllowedCpuBoost: base('0') },
      ).toString(),
    ).toBe('3');
  });

  it('property: never below the base, never above the cap, exact when uncapped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 64_000 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 8_000 }),
        fc.option(fc.integer({ min: 1, max: 200_000 }), { nil: undefined }),
        (baseMilli, factor, addMilli, capMilli) => {
          const settings =
            capMilli === undefined
              ? {}
              : {
                  maxAllowedCpuBoost: Quantity.fromMilli(
                    BigInt(capMilli),
                    'DecimalSI',
                  ),
                };
          const start = Quantity.fromMilli(BigInt(baseMilli), 'DecimalSI');
          for (const [boost, uncapped] of [
            [{ type: 'Factor', factor } as const, baseMilli * factor],
            [
              { type: 'Quantity', quantity: `${addMilli}m` } as const,
              baseMilli + addMilli,
            ],
          ] as const) {
            const result = Number(
              boostedCpu(start, boost, settings).milliValue(),
            );
            const expected =
              capMilli === undefined ? uncapped : Math.min(uncapped, capMilli);
            expect(result).toBe(expected);
          }
        },
      ),
    );
  });
});

describe('admit: CPU startup boost', () => {
  const app = () =>
    containerWith('app', { cpu: '100m', memory: '128Mi' }, { cpu: '200m' });

  it('boosts the recommended request by a factor and scales the limit from the declared ratio', async () => {
    const pod = podWith([app()]);
    const vpa = boostedVpa({ cpu: '250m', memory: '256Mi' }, byFactor(4));
    const result = await admitWith(pod, vpa);
    expect(result.outcome).toBe('applied');
    const after = patched(pod, result);
    expect(containerOf(after)).toEqual({
      requests: { cpu: '1', memory: '256Mi' },
      limits: { cpu: '2' },
    });
    expect(annotationsOf(after)).toMatchObject({
      'vpaCpuStartupBoost/app':
        '{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"200m"}}',
      vpaUpdates:
        'Pod resources updated by web: container 0: memory: limit NOT set since originalLimit is nil or 0, cpu request, memory request, cpu limit',
    });
  });

  it('boosts by a quantity, and caps at --max-allowed-cpu-boost', async () => {
    const pod = podWith([app()]);
    const vpa = boostedVpa({ cpu: '250m' }, byQuantity('1'));
    const uncapped = patched(pod, await admitWith(pod, vpa));
    expect(containerOf(uncapped)).toMatchObject({
      requests: { cpu: '1250m' },
      limits: { cpu: '2500m' },
    });
    const capped = patched(
      pod,
      await admitWith(pod, vpa, { maxAllowedCpuBoost: parseQuantity('1') }),
    );
    expect(containerOf(capped)).toMatchObject({
      requests: { cpu: '1' },
      limits: { cpu: '2' },
    });
  });

  it('without a recommendation, boosts the declared request', async () => {
    const pod = podWith([app()]);
    const result = await admitWith(pod, boostedVpa(undefined, byFactor(2)));
    expect(containerOf(patched(pod, result))).toEqual({
      requests: { cpu: '200m', memory: '128Mi' },
      limits: { cpu: '400m' },
    });
  });

  it('mode Off with a boost still matches: only the boost applies', async () => {
    const pod = podWith([app()]);
    const vpa = boostedVpa({ cpu: '900m', memory: '1Gi' }, byFactor(3), {
      mode: 'Off',
    });
    const result = await admitWith(pod, vpa);
    const after = patched(pod, result);
    expect(containerOf(after)).toEqual({
      requests: { cpu: '300m', memory: '128Mi' },
      limits: { cpu: '600m' },
    });
    expect(annotationsOf(after)['vpaUpdates']).toBe(
      'Pod resources updated by web: container 0: cpu request, cpu limit',
    );
  });

  it('container scaling mode Off gets no boost', async () => {
    const pod = podWith([app()]);
    const vpa = boostedVpa({ cpu: '250m' }, byFactor(3), {
      mode: 'Off',
      policies: [{ containerName: 'app', mode: 'Off' }],
    });
    const result = await admitWith(pod, vpa);
    expect(result.outcome).toBe('skipped');
    expect(annotationsOf(patched(pod, result))).not.toHaveProperty(
      'vpaCpuStartupBoost/app',
    );
  });

  it('a container policy boost overrides the pod-level one', async () => {
    const pod = podWith([app()]);
    const vpa = boostedVpa({ cpu: '100m' }, byFactor(10), {
      policies: [{ containerName: 'app', startupBoost: byFactor(2) }],
    });
    expect(containerOf(patched(pod, await admitWith(pod, vpa)))).toMatchObject({
      requests: { cpu: '200m' },
    });
  });

  it('RequestsOnly keeps the boosted request 1m under the CPU limit', async () => {
    const pod = podWith([app()]);
    const vpa = boostedVpa({ cpu: '150m' }, byFactor(5), {
      policies: [{ containerName: 'app', controlledValues: 'RequestsOnly' }],
    });
    expect(containerOf(patched(pod, await admitWith(pod, vpa)))).toEqual({
      requests: { cpu: '199m', memory: '128Mi' },
      limits: { cpu: '200m' },
    });
  });

  it('with the gate off, an Off VPA with a boost changes no resource', async () => {
    const pod = podWith([app()]);
    const vpa = boostedVpa({ cpu: '250m' }, byFactor(3), { mode: 'Off' });
    const result = await admitWith(pod, vpa, {}, {});
    expect(result.outcome).toBe('skipped');
    expect(result.message).toContain('CPUStartupBoost feature gate');
    expect(containerOf(patched(pod, result))).toEqual(containerOf(pod));
  });

  it('does not boost a pod that declares CPU at pod level', async () => {
    const pod = podWith([containerWith('app', { memory: '128Mi' })], {
      resources: { requests: { cpu: '1' } },
    });
    const vpa = boostedVpa(undefined, byFactor(3));
    const result = await admitWith(pod, vpa);
    expect(annotationsOf(patched(pod, result))).not.toHaveProperty(
      'vpaCpuStartupBoost/app',
    );
  });

  it('property: the annotation round-trips to the declared cpu and memory values', async () => {
    const quantity = fc.oneof(
      fc.integer({ min: 1, max: 8000 }).map((n) => `${n}m`),
      fc.integer({ min: 1, max: 4096 }).map((n) => `${n}Mi`),
      fc.integer({ min: 1, max: 16 }).map(String),
    );
    const list = fc.record(
      { cpu: quantity, memory: quantity, 'nvidia.com/gpu': quantity },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(list, list, async (requests, limits) => {
        const pod = podWith([{ name: 'app', resources: { requests, limits } }]);
        const vpa = boostedVpa(undefined, byQuantity('100m'));
        const result = await admitWith(pod, vpa);
        const text = annotationsOf(patched(pod, result))[
          'vpaCpuStartupBoost/app'
        ];
        if (text === undefined) return; // refused as unsafe (request over limit)
        const read = parseBoostAnnotation(text);
        expect(read).not.toHaveProperty('problem');
        const same = (
          got: Record<string, string>,
          declared: Record<string, string>,
        ) => {
          expect(Object.keys(got).sort()).toEqual(
            Object.keys(declared)
              .filter((name) => name !== 'nvidia.com/gpu')
              .sort(),
          );
          for (const [name, value] of Object.entries(got))
            expect(milli(value)).toBe(milli(declared[name] ?? ''));
        };
        if ('requests' in read) {
          same(read.requests, requests);
          same(read.limits, limits);
        }
      }),
      { numRuns: 60 },
    );
  });
});
