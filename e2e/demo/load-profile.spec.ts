import { planPodUsage } from '../harness/load-split.ts';
import {
  demoCpuMillicores,
  demoLoad,
  demoMemoryBytes,
} from './load-profile.ts';

const MiB = 1024 * 1024;
const PERIOD_MS = 5 * 60 * 1000;

describe('the demo load profile', () => {
  it('keeps the workload within 100m..500m CPU and 340Mi..460Mi memory in total', () => {
    for (let second = 0; second < 600; second += 7) {
      const cpu = demoCpuMillicores(second * 1000);
      const memory = demoMemoryBytes(second * 1000);
      expect(cpu).toBeGreaterThanOrEqual(100);
      expect(cpu).toBeLessThanOrEqual(500);
      expect(memory).toBeGreaterThanOrEqual(340 * MiB);
      expect(memory).toBeLessThanOrEqual(460 * MiB);
    }
  });

  it('swings over five minutes, so the HPA has something to follow', () => {
    expect(demoCpuMillicores(0)).toBe(300);
    expect(demoCpuMillicores(PERIOD_MS / 4)).toBe(500);
    expect(demoCpuMillicores((3 * PERIOD_MS) / 4)).toBe(100);
    expect(demoCpuMillicores(PERIOD_MS + 42_000)).toBe(
      demoCpuMillicores(42_000),
    );
  });

  it('is a total: more Ready pods each get less, and together the whole', () => {
    const pods = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        name: `demo-web-${index}`,
        ready: true,
      }));
    const peak = PERIOD_MS / 4;
    const two = [...planPodUsage(demoLoad(), peak, pods(2)).values()];
    const five = [...planPodUsage(demoLoad(), peak, pods(5)).values()];
    expect(two.map((usage) => usage.cpuMillicores)).toEqual([250, 250]);
    expect(five.map((usage) => usage.cpuMillicores)).toEqual([
      100, 100, 100, 100, 100,
    ]);
    const memory = five.reduce((sum, usage) => sum + usage.memoryBytes, 0);
    expect(memory).toBe(demoMemoryBytes(peak));
  });
});
