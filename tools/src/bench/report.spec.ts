import { formatFigures, machineLoad, medianWithSpread } from './report.js';

describe('machineLoad', () => {
  it('states both load averages, and warns when either is above half the cores', () => {
    expect(machineLoad(0.42, 0.9, 2)).toEqual({
      summary: 'load average 0.42 at start, 0.90 at end',
    });
    expect(machineLoad(0.3, 1.2, 2).warning).toBe(
      'The machine was busy (load average above 1, half its 2 cores): these figures may hold contention; measure again on a quiet machine before comparing them.',
    );
    expect(machineLoad(5, 0.1, 16).warning).toBeUndefined();
  });
});

describe('medianWithSpread and formatFigures', () => {
  it('gives the median of the runs with the lowest and highest, and prints them', () => {
    const { value, spread } = medianWithSpread([3.2, 2.9, 4.1, 3.0, 3.3]);
    expect({ value, spread }).toEqual({
      value: 3.2,
      spread: { low: 2.9, high: 4.1, runs: 5 },
    });
    expect(
      formatFigures([
        {
          name: 'webhook p99',
          value,
          unit: 'ms',
          target: { comparison: '<=', value: 5 },
          spread,
        },
      ]).split('\n')[1],
    ).toBe('webhook p99  3.20 ms (2.90–4.10, 5 runs)  <= 5.00 ms  ok');
  });

  it('prints no spread for a single run', () => {
    const { value, spread } = medianWithSpread([7]);
    expect(
      formatFigures([
        { name: 'x', value, unit: 's', target: undefined, spread },
      ]).split('\n')[1],
    ).toBe('x       7.00 s');
  });
});
