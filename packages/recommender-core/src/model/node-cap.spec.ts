import type { V1Node } from '@kubernetes/client-node';
import {
  parseCpuMillicores,
  parseMemoryBytes,
  type RecommendedContainerResources,
} from '@tandem/vpa-api';
import fc from 'fast-check';
import { capToLargestNode, largestNodeAllocatable } from './node-cap.js';

const node = (cpu: string, memory: string, unschedulable = false): V1Node => ({
  spec: { unschedulable },
  status: { allocatable: { cpu, memory, pods: '110' } },
});

const container = (
  containerName: string,
  cpu: string,
  memory: string,
): RecommendedContainerResources => ({
  containerName,
  target: { cpu, memory },
  lowerBound: { cpu, memory },
  upperBound: { cpu, memory },
  uncappedTarget: { cpu, memory },
});

describe('largestNodeAllocatable', () => {
  it('takes each resource’s largest allocatable of the schedulable nodes', () => {
    expect(
      largestNodeAllocatable([
        node('4', '64Gi'),
        node('16', '32Gi'),
        node('64', '512Gi', true),
        node('oops', '8Gi'),
      ]),
    ).toEqual({ cpu: '16', memory: '64Gi' });
  });

  it('caps nothing without a schedulable node', () => {
    expect(largestNodeAllocatable([node('8', '8Gi', true)])).toEqual({});
  });
});

describe('capToLargestNode', () => {
  it('leaves a pod that fits as it is, the very objects', () => {
    const pod = [
      container('app', '1', '1Gi'),
      container('sidecar', '500m', '1Gi'),
    ];
    const capped = capToLargestNode(pod, { cpu: '4', memory: '8Gi' });
    expect(capped[0]).toBe(pod[0]);
    expect(capped[1]).toBe(pod[1]);
  });

  it('scales a pod past the node down by one factor, keeping the uncapped target', () => {
    const [app, sidecar] = capToLargestNode(
      [container('app', '6', '12Gi'), container('sidecar', '2', '4Gi')],
      { cpu: '4', memory: '8Gi' },
    );
    expect(app?.target).toEqual({ cpu: '3', memory: '6Gi' });
    expect(sidecar?.target).toEqual({ cpu: '1', memory: '2Gi' });
    expect(app?.upperBound).toEqual({ cpu: '3', memory: '6Gi' });
    expect(app?.uncappedTarget).toEqual({ cpu: '6', memory: '12Gi' });
  });

  it('caps a bound past the node even when the targets fit', () => {
    const [app] = capToLargestNode(
      [
        {
          containerName: 'app',
          target: { cpu: '1', memory: '1Gi' },
          upperBound: { cpu: '10', memory: '100Gi' },
        },
      ],
      { cpu: '4', memory: '8Gi' },
    );
    expect(app?.target).toEqual({ cpu: '1', memory: '1Gi' });
    expect(app?.upperBound).toEqual({ cpu: '4', memory: '8Gi' });
  });

  it('never lets a pod’s targets exceed the node, nor reorders bounds, nor raises a value', () => {
    const amounts = fc.record({
      lower: fc.integer({ min: 0, max: 10_000 }),
      extraTarget: fc.integer({ min: 0, max: 10_000 }),
      extraUpper: fc.integer({ min: 0, max: 10_000 }),
    });
    fc.assert(
      fc.property(
        fc.array(amounts, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 20_000 }),
        fc.integer({ min: 1, max: 20_000 }),
        (containers, cpuLimit, memoryMib) => {
          const recommendations = containers.map(
            ({ lower, extraTarget, extraUpper }, index) => {
              const at = (millicores: number) => ({
                cpu: `${millicores}m`,
                memory: `${millicores}Mi`,
              });
              return {
                containerName: `c${index}`,
                lowerBound: at(lower),
                target: at(lower + extraTarget),
                upperBound: at(lower + extraTarget + extraUpper),
              };
            },
          );
          const capped = capToLargestNode(recommendations, {
            cpu: `${cpuLimit}m`,
            memory: `${memoryMib}Mi`,
          });
          const cpu = (list?: Record<string, string>) =>
            parseCpuMillicores(list?.['cpu'] ?? '0');
          const memory = (list?: Record<string, string>) =>
            parseMemoryBytes(list?.['memory'] ?? '0');
          expect(
            capped.reduce((sum, { target }) => sum + cpu(target), 0),
          ).toBeLessThanOrEqual(Math.max(cpuLimit, 0));
          expect(
            capped.reduce((sum, { target }) => sum + memory(target), 0),
          ).toBeLessThanOrEqual(memoryMib * 2 ** 20);
          capped.forEach((after, index) => {
            const before = recommendations[index];
            for (const read of [cpu, memory]) {
              expect(read(after.lowerBound)).toBeLessThanOrEqual(
                read(after.target),
              );
              expect(read(after.target)).toBeLessThanOrEqual(
                read(after.upperBound),
              );
              expect(read(after.upperBound)).toBeLessThanOrEqual(
                read(before?.upperBound),
              );
            }
          });
        },
      ),
    );
  });
});
