import { DeclaredCursor, type DeclaredSizes } from './declared-sizes.js';

const SMALL = { cpu: 100, memory: 1000 };
const MEDIUM = { cpu: 200, memory: 2000 };
const LARGE = { cpu: 400, memory: 4000 };
const DECLARED: DeclaredSizes = {
  timesMs: [1000, 2000, 3000],
  sizes: [SMALL, MEDIUM, LARGE],
};

describe('DeclaredCursor', () => {
  it('knows nothing without declared sizes', () => {
    expect(new DeclaredCursor(undefined).at(0)).toBeUndefined();
  });

  it('reads the size in force at each time, the first one before any change point', () => {
    const cursor = new DeclaredCursor(DECLARED);
    expect(
      [0, 999, 1000, 1999, 2000, 2000, 2999, 3000, 1e12].map((t) =>
        cursor.at(t),
      ),
    ).toEqual([
      SMALL,
      SMALL,
      SMALL,
      SMALL,
      MEDIUM,
      MEDIUM,
      MEDIUM,
      LARGE,
      LARGE,
    ]);
  });

  it('skips several change points in one step', () => {
    const cursor = new DeclaredCursor(DECLARED);
    expect(cursor.at(0)).toBe(SMALL);
    expect(cursor.at(5000)).toBe(LARGE);
  });

  it('takes the last of change points at the same time', () => {
    const cursor = new DeclaredCursor({
      timesMs: [0, 10, 10],
      sizes: [SMALL, MEDIUM, LARGE],
    });
    expect(cursor.at(10)).toBe(LARGE);
  });

  it('is empty for a series with no change points', () => {
    expect(
      new DeclaredCursor({ timesMs: [], sizes: [] }).at(0),
    ).toBeUndefined();
  });
});
