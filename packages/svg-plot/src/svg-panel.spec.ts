import { countAxis, linearAxis, niceTicks, panel } from './svg-panel.js';

describe('niceTicks', () => {
  it('steps by 1, 2 or 5 times a power of ten from below the minimum to above the maximum', () => {
    expect(niceTicks(0, 10)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0.31, 0.87)).toEqual([0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(3, 2400)).toEqual([0, 500, 1000, 1500, 2000, 2500]);
  });

  it('writes no float noise', () => {
    expect(niceTicks(0.1, 0.35)).toEqual([0.1, 0.15, 0.2, 0.25, 0.3, 0.35]);
  });

  it('gives one tick for an empty range', () => {
    expect(niceTicks(4, 4)).toEqual([4]);
  });
});

describe('linearAxis', () => {
  it('spans the outer ticks', () => {
    const axis = linearAxis(0.31, 0.87, 'slack', (v) => `${v * 100}%`);
    expect(axis.fraction(0.2)).toBe(0);
    expect(axis.fraction(1)).toBe(1);
    expect(axis.ticks[0]).toEqual({ value: 0.2, text: '20%' });
  });
});

describe('countAxis', () => {
  it('puts 0 at the start and the decade above the largest count at the end', () => {
    const axis = countAxis(848, 'OOM kills');
    expect(axis.ticks.map((tick) => tick.text)).toEqual([
      '0',
      '1',
      '10',
      '100',
      '1000',
    ]);
    expect(axis.fraction(0)).toBe(0);
    expect(axis.fraction(1000)).toBe(1);
    expect(axis.fraction(10)).toBeGreaterThan(axis.fraction(1));
  });

  it('keeps a decade when there is nothing to count', () => {
    const axis = countAxis(0, 'OOM kills');
    expect(axis.ticks.map((tick) => tick.value)).toEqual([0, 1, 10]);
  });
});

describe('panel', () => {
  const drawn = panel(
    'p',
    { left: 100, top: 50, width: 200, height: 100 },
    'Title',
    linearAxis(0, 10, 'x', String),
    linearAxis(0, 1, 'y', String),
  );

  it('maps data to pixels, y upwards', () => {
    expect(drawn.x(0)).toBe(100);
    expect(drawn.x(10)).toBe(300);
    expect(drawn.y(0)).toBe(150);
    expect(drawn.y(1)).toBe(50);
  });

  it('writes the title, axis labels and tick labels', () => {
    for (const label of ['>Title<', '>x<', '>y<', '>10<', '>0.4<'])
      expect(drawn.decoration).toContain(label);
  });

  it('clips marks to its frame under its own id', () => {
    expect(drawn.clipped(['<path/>'])).toBe(
      '<clipPath id="p"><rect x="100" y="50" width="200" height="100"/></clipPath>\n' +
        '<g clip-path="url(#p)"><path/></g>',
    );
  });
});
