import fc from 'fast-check';
import {
  parseCpuMillicores,
  formatCpuMillicores,
  type RecommendedContainerResources,
} from '@tandem/vpa-api';
import { integerCpuContainers, roundUpToWholeCores } from './integer-cpu.js';
import { vpaObject } from './model.fixtures.js';

function annotated(annotations: Record<string, string>) {
  const vpa = vpaObject('web');
  return { ...vpa, metadata: { ...vpa.metadata, annotations } };
}

const recommendation = (
  containerName: string,
  cpu: string,
): RecommendedContainerResources => ({
  containerName,
  target: { cpu, memory: '250Mi' },
  lowerBound: { cpu, memory: '200Mi' },
  upperBound: { cpu, memory: '300Mi' },
  uncappedTarget: { cpu, memory: '250Mi' },
});

describe('the integer-CPU post-processor', () => {
  it("reads upstream's per-container annotation, only when it says true", () => {
    expect(
      integerCpuContainers(
        annotated({
          'vpa-post-processor.kubernetes.io/app_integerCPU': 'true',
          'vpa-post-processor.kubernetes.io/sidecar_integerCPU': 'false',
          'vpa-post-processor.kubernetes.io/_integerCPU': 'true',
          'other.example.com/app_integerCPU': 'true',
        }),
      ),
    ).toEqual(new Set(['app']));
  });

  it('rounds the opted-in container up to whole cores, memory and the other containers untouched', () => {
    expect(
      roundUpToWholeCores(
        [recommendation('app', '587m'), recommendation('sidecar', '25m')],
        new Set(['app']),
      ),
    ).toEqual([
      {
        containerName: 'app',
        target: { cpu: '1', memory: '250Mi' },
        lowerBound: { cpu: '1', memory: '200Mi' },
        upperBound: { cpu: '1', memory: '300Mi' },
        uncappedTarget: { cpu: '1', memory: '250Mi' },
      },
      recommendation('sidecar', '25m'),
    ]);
    expect(
      roundUpToWholeCores([recommendation('app', '2')], new Set(['app']))[0]
        ?.target,
    ).toEqual({ cpu: '2', memory: '250Mi' });
  });

  it('gives the smallest whole number of cores not below the recommendation', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (millicores) => {
        const [rounded] = roundUpToWholeCores(
          [recommendation('app', formatCpuMillicores(millicores))],
          new Set(['app']),
        );
        const result = parseCpuMillicores(rounded?.target.cpu ?? '');
        expect(result % 1000).toBe(0);
        expect(result).toBeGreaterThanOrEqual(millicores);
        expect(result - millicores).toBeLessThan(1000);
      }),
    );
  });
});
