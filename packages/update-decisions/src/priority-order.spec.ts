import fc from 'fast-check';
import {
  compareUpdatePriority,
  orderForUpdate,
  type UpdatePriority,
} from './priority-order.js';

const priority = fc.record({
  scaleUp: fc.boolean(),
  diff: fc.oneof(
    fc.double({ min: 0, max: 1e6, noNaN: true }),
    fc.constantFrom(0, 0.1, 0.5, 1),
  ),
});

const sign = (value: number) => Math.sign(value);

describe('compareUpdatePriority (§5.3 ordering)', () => {
  it('puts a scale-up before any scale-down, however small its diff', () => {
    const ordered = orderForUpdate(
      [
        { name: 'down-big', scaleUp: false, diff: 80 },
        { name: 'up-small', scaleUp: true, diff: 0.2 },
        { name: 'down-small', scaleUp: false, diff: 0.5 },
        { name: 'up-big', scaleUp: true, diff: 4 },
      ],
      (candidate) => candidate,
    );
    expect(ordered.map((candidate) => candidate.name)).toEqual([
      'up-big',
      'up-small',
      'down-big',
      'down-small',
    ]);
  });

  it('keeps the input order for equal priorities', () => {
    const ordered = orderForUpdate(['a', 'b', 'c'], () => ({
      scaleUp: true,
      diff: 1,
    }));
    expect(ordered).toEqual(['a', 'b', 'c']);
  });

  it('is a total order: antisymmetric, transitive, and reflexive', () => {
    fc.assert(
      fc.property(priority, priority, priority, (a, b, c) => {
        expect(compareUpdatePriority(a, a)).toBe(0);
        expect(
          sign(compareUpdatePriority(a, b)) + sign(compareUpdatePriority(b, a)),
        ).toBe(0);
        if (
          compareUpdatePriority(a, b) <= 0 &&
          compareUpdatePriority(b, c) <= 0
        ) {
          expect(compareUpdatePriority(a, c)).toBeLessThanOrEqual(0);
        }
      }),
    );
  });

  it('orders every scale-up first, each part by non-increasing diff', () => {
    fc.assert(
      fc.property(fc.array(priority, { maxLength: 30 }), (priorities) => {
        const ordered = orderForUpdate(priorities, (p: UpdatePriority) => p);
        const firstDown = ordered.findIndex((p) => !p.scaleUp);
        if (firstDown >= 0) {
          expect(ordered.slice(firstDown).every((p) => !p.scaleUp)).toBe(true);
        }
        ordered.forEach((p, index) => {
          const next = ordered[index + 1];
          if (next !== undefined && next.scaleUp === p.scaleUp) {
            expect(next.diff).toBeLessThanOrEqual(p.diff);
          }
        });
        expect(ordered).toHaveLength(priorities.length);
      }),
    );
  });
});
