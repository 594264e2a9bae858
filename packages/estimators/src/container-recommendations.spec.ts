import { toContainerRecommendations } from './container-recommendations.js';
import { humanizedMemoryText } from './humanized-memory.js';
import type { RecommendedContainerResources } from './recommend-pod.js';

const MIB = 1024 * 1024;

function uniform(cpu: number, memory: number): RecommendedContainerResources {
  const amounts = { cpu, memory };
  return { target: amounts, lowerBound: amounts, upperBound: amounts };
}

describe('toContainerRecommendations', () => {
  it('writes the VPA status form of golden vectors 15 and 16, sorted by container name', () => {
    const recommendations = toContainerRecommendations(
      new Map<string, RecommendedContainerResources>([
        [
          'web',
          {
            target: { cpu: 587, memory: 628694953 },
            lowerBound: { cpu: 585, memory: 627438575 },
            upperBound: { cpu: 1174, memory: 1257826803 },
          },
        ],
        [
          'fresh',
          {
            target: { cpu: 587, memory: 628694953 },
            lowerBound: { cpu: 25, memory: 262144000 },
            upperBound: { cpu: 1e14, memory: 1e14 },
          },
        ],
      ]),
    );
    expect(recommendations).toEqual([
      {
        containerName: 'fresh',
        target: { cpu: '587m', memory: '628694953' },
        lowerBound: { cpu: '25m', memory: '250Mi' },
        upperBound: { cpu: '100G', memory: '97656250000Ki' },
        uncappedTarget: { cpu: '587m', memory: '628694953' },
      },
      {
        containerName: 'web',
        target: { cpu: '587m', memory: '628694953' },
        lowerBound: { cpu: '585m', memory: '627438575' },
        upperBound: { cpu: '1174m', memory: '1257826803' },
        uncappedTarget: { cpu: '587m', memory: '628694953' },
      },
    ]);
  });

  it('writes whole cores without a suffix', () => {
    expect(
      toContainerRecommendations(new Map([['a', uniform(2000, 0)]]))[0]?.target,
    ).toEqual({
      cpu: '2',
      memory: '0',
    });
  });

  it('gives uncappedTarget its own object', () => {
    const [entry] = toContainerRecommendations(
      new Map([['a', uniform(100, MIB)]]),
    );
    expect(entry?.uncappedTarget).not.toBe(entry?.target);
  });

  describe('rounding (golden vector 23)', () => {
    it('rounds CPU up to a multiple of roundCpuMillicores', () => {
      const format = { roundCpuMillicores: 50 };
      const cpuOf = (millicores: number) =>
        toContainerRecommendations(
          new Map([['a', uniform(millicores, 0)]]),
          format,
        )[0]?.target.cpu;
      expect(cpuOf(79)).toBe('100m');
      expect(cpuOf(34)).toBe('50m');
      expect(cpuOf(100)).toBe('100m');
      expect(cpuOf(0)).toBe('0');
    });

    it('rounds memory up to a multiple of roundMemoryBytes', () => {
      const format = { roundMemoryBytes: 134217728 };
      const memoryOf = (bytes: number) =>
        toContainerRecommendations(
          new Map([['a', uniform(0, bytes)]]),
          format,
        )[0]?.target.memory;
      expect(memoryOf(200 * MIB)).toBe('256Mi');
      expect(memoryOf(80 * MIB)).toBe('128Mi');
      expect(memoryOf(0)).toBe('0');
    });

    it('rounds beyond the cap exactly', () => {
      const format = { roundMemoryBytes: 3 };
      expect(
        toContainerRecommendations(
          new Map([['a', uniform(0, 1e14)]]),
          format,
        )[0]?.target.memory,
      ).toBe('100000000000002');
    });
  });

  describe('humanizeMemory (golden vector 23)', () => {
    it('writes two decimals in the largest binary unit, as upstream does before re-parsing', () => {
      expect(humanizedMemoryText(262144000)).toBe('250.00Mi');
      expect(humanizedMemoryText(1537)).toBe('1.50Ki');
      expect(humanizedMemoryText(628694953)).toBe('599.57Mi');
      expect(humanizedMemoryText(5 * 1024 ** 4)).toBe('5.00Ti');
      expect(humanizedMemoryText(1023)).toBe('1023');
    });

    it('rounds ties to even like Go’s %.2f', () => {
      expect(humanizedMemoryText(1152)).toBe('1.12Ki'); // 1.125 Ki
      expect(humanizedMemoryText(1408)).toBe('1.38Ki'); // 1.375 Ki
    });

    // Expected strings checked against upstream's ResourcesAsResourceList and apimachinery's
    // Quantity JSON encoding.
    it('stores the canonical form of the re-parsed quantity', () => {
      const memoryOf = (bytes: number) =>
        toContainerRecommendations(new Map([['a', uniform(0, bytes)]]), {
          humanizeMemory: true,
        })[0]?.target.memory;
      expect(memoryOf(262144000)).toBe('250Mi');
      expect(memoryOf(1537)).toBe('1536');
      // 599.57 Mi is not a whole number of bytes: apimachinery falls back to DecimalSI.
      expect(memoryOf(628694953)).toBe('628694712320m');
      expect(memoryOf(1152)).toBe('1146880m');
      expect(memoryOf(1000)).toBe('1k');
      expect(memoryOf(0)).toBe('0');
    });

    it('applies after rounding', () => {
      const [entry] = toContainerRecommendations(
        new Map([['a', uniform(0, 200 * MIB)]]),
        {
          roundMemoryBytes: 134217728,
          humanizeMemory: true,
        },
      );
      expect(entry?.target.memory).toBe('256Mi');
    });
  });

  it.each([0, -50, 1.5, Number.NaN])('refuses the rounding step %p', (step) => {
    const recommendations = new Map([['a', uniform(1, 1)]]);
    expect(() =>
      toContainerRecommendations(recommendations, { roundCpuMillicores: step }),
    ).toThrow(
      new RangeError(
        `roundCpuMillicores must be a positive integer, got ${step}`,
      ),
    );
    expect(() =>
      toContainerRecommendations(recommendations, { roundMemoryBytes: step }),
    ).toThrow(
      new RangeError(
        `roundMemoryBytes must be a positive integer, got ${step}`,
      ),
    );
  });
});
