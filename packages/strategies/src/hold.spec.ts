import fc from 'fast-check';
import { holdWithinBand } from './hold.js';
import type { StrategyRecommendation } from './strategy.js';

const MIB = 1024 * 1024;

function recommendation(cpu: number, memory: number): StrategyRecommendation {
  return {
    target: { cpu, memory },
    lowerBound: { cpu: cpu - 10, memory: memory - MIB },
    upperBound: { cpu: cpu + 10, memory: memory + MIB },
  };
}

const HELD = recommendation(1000, 1000 * MIB);

describe('holdWithinBand (golden vectors, band 0.15)', () => {
  it.each([
    ['nothing held yet: the fresh one', undefined, [900, 900], [900, 900]],
    [
      'both within the band: the held one, bounds too',
      HELD,
      [1150, 850],
      [1000, 1000],
    ],
    [
      'CPU past the band up: fresh CPU, held memory',
      HELD,
      [1151, 900],
      [1151, 1000],
    ],
    ['CPU past the band down: fresh CPU', HELD, [849, 1000], [849, 1000]],
    [
      'memory rising, however little: fresh memory',
      HELD,
      [1000, 1001],
      [1000, 1001],
    ],
    ['memory past the band down: fresh memory', HELD, [1000, 849], [1000, 849]],
  ] as const)('%s', (_, held, [cpu, memory], [wantCpu, wantMemory]) => {
    const fresh = recommendation(cpu, memory * MIB);
    const wanted = recommendation(wantCpu, wantMemory * MIB);
    expect(holdWithinBand(held, fresh, 0.15)).toEqual(wanted);
  });

  it('band 0 gives the fresh recommendation, the very object', () => {
    const fresh = recommendation(1001, 1000 * MIB);
    expect(holdWithinBand(HELD, fresh, 0)).toBe(fresh);
  });
});

describe('holdWithinBand (properties)', () => {
  const amount = fc.integer({ min: 1, max: 10 ** 12 });
  const someRecommendation = fc
    .tuple(amount, amount)
    .map(([cpu, memory]) => recommendation(cpu, memory));
  const cases = fc.record({
    held: someRecommendation,
    fresh: someRecommendation,
    band: fc.double({ min: 0, max: 1, noNaN: true }),
  });
  const RESOURCES = ['cpu', 'memory'] as const;

  it('per resource, gives the held or the fresh figures, never a mix of their bounds', () => {
    fc.assert(
      fc.property(cases, ({ held, fresh, band }) => {
        const result = holdWithinBand(held, fresh, band);
        for (const resource of RESOURCES) {
          const from = [held, fresh].find(
            (r) => r.target[resource] === result.target[resource],
          );
          expect(from).toBeDefined();
          expect(result.lowerBound[resource]).toBe(from?.lowerBound[resource]);
          expect(result.upperBound[resource]).toBe(from?.upperBound[resource]);
        }
      }),
    );
  });

  it('never holds a memory target below the fresh one, nor a target farther than the band', () => {
    fc.assert(
      fc.property(cases, ({ held, fresh, band }) => {
        const result = holdWithinBand(held, fresh, band);
        expect(result.target.memory).toBeGreaterThanOrEqual(
          fresh.target.memory,
        );
        for (const resource of RESOURCES)
          if (result.target[resource] !== fresh.target[resource])
            expect(
              Math.abs(fresh.target[resource] - held.target[resource]),
            ).toBeLessThanOrEqual(band * held.target[resource]);
      }),
    );
  });
});
