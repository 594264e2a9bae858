import { parseCpuMillicores, parseMemoryBytes } from '@tandem/vpa-api';
import { demoUsage } from './load-profile.ts';

describe('the demo load profile', () => {
  it('stays within 50m..250m CPU and 170Mi..230Mi memory, as valid quantities', () => {
    for (let second = 0; second < 600; second += 7) {
      for (let pod = 0; pod < 4; pod += 1) {
        const usage = demoUsage(second * 1000, pod);
        expect(parseCpuMillicores(usage.cpu)).toBeGreaterThanOrEqual(50);
        expect(parseCpuMillicores(usage.cpu)).toBeLessThanOrEqual(250);
        expect(parseMemoryBytes(usage.memory)).toBeGreaterThanOrEqual(
          170 * 1048576,
        );
        expect(parseMemoryBytes(usage.memory)).toBeLessThanOrEqual(
          230 * 1048576,
        );
      }
    }
  });

  it('varies over time and between pods', () => {
    expect(demoUsage(0, 0)).not.toEqual(demoUsage(75_000, 0));
    expect(demoUsage(0, 0)).not.toEqual(demoUsage(0, 1));
  });
});
