import fc from 'fast-check';
import { clusterHistory } from './cluster-history.js';
import { LABEL_NAMES, usageSeries } from './history.fixtures.js';

const T = 1_700_000_000_000;

/** A container's answer: points at distinct whole seconds, any order, with NaN/Inf mixed in. */
const points = fc
  .uniqueArray(fc.integer({ min: 0, max: 100_000 }), { maxLength: 40 })
  .chain((seconds) =>
    fc.tuple(
      fc.constant(seconds),
      fc.array(
        fc.oneof(
          fc.double({ min: 0, max: 1e12, noNaN: true }),
          fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY),
        ),
        { minLength: seconds.length, maxLength: seconds.length },
      ),
    ),
  )
  .map(([seconds, values]) =>
    seconds.map((s, i): [number, number] => [T + s * 1000, values[i] ?? 0]),
  );

describe('clusterHistory (properties)', () => {
  it('gives each container its finite samples, sorted, in truncated upstream units', () => {
    fc.assert(
      fc.property(points, points, (cpu, memory) => {
        const history = clusterHistory(
          {
            cpu: [usageSeries('shop', 'web-1', 'app', cpu)],
            memory: [usageSeries('shop', 'web-1', 'app', memory)],
            podLabels: [],
          },
          LABEL_NAMES,
        );
        const samples = history.get('shop/web-1')?.containers.get('app') ?? [];
        const times = samples.map((sample) => sample.timeMs);
        expect(times).toEqual([...times].sort((a, b) => a - b));
        const expected = (
          resource: 'cpu' | 'memory',
          given: [number, number][],
          scale: number,
        ) =>
          given
            .filter(([, value]) => Number.isFinite(value))
            .map(([timeMs, value]) => ({
              timeMs,
              resource,
              usage: Math.floor(value * scale),
            }))
            .sort((a, b) => a.timeMs - b.timeMs);
        expect(samples.filter((s) => s.resource === 'cpu')).toEqual(
          expected('cpu', cpu, 1000),
        );
        expect(samples.filter((s) => s.resource === 'memory')).toEqual(
          expected('memory', memory, 1),
        );
      }),
    );
  });
});
