import { machineLoad } from './report.js';

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
