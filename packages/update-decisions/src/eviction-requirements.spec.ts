import type { EvictionRequirement, ResourceList } from '@tandem/vpa-api';
import { meetsEvictionRequirements } from './eviction-requirements.js';
import { container, entry, podWith, vpaWith } from './updater.fixtures.js';

const cpuUp: EvictionRequirement = {
  resources: ['cpu'],
  changeRequirement: 'TargetHigherThanRequests',
};
const memoryDown: EvictionRequirement = {
  resources: ['memory'],
  changeRequirement: 'TargetLowerThanRequests',
};
const eitherUp: EvictionRequirement = {
  resources: ['cpu', 'memory'],
  changeRequirement: 'TargetHigherThanRequests',
};

function meets(
  requirements: EvictionRequirement[],
  requests: ResourceList,
  target: ResourceList,
): boolean {
  const vpa = vpaWith([entry('app', target)], {
    evictionRequirements: requirements,
  });
  return meetsEvictionRequirements(
    podWith([container('app', requests)]),
    vpa,
    vpa.status?.recommendation,
  );
}

describe('meetsEvictionRequirements (§5.3 eviction-requirements admission)', () => {
  const requests = { cpu: '1', memory: '1Gi' };

  it.each([
    ['cpu up, target higher', [cpuUp], { cpu: '2', memory: '1Gi' }, true],
    ['cpu up, target equal', [cpuUp], { cpu: '1', memory: '2Gi' }, false],
    [
      'cpu up and memory down, both hold',
      [cpuUp, memoryDown],
      { cpu: '2', memory: '512Mi' },
      true,
    ],
    [
      'cpu up and memory down, one fails',
      [cpuUp, memoryDown],
      { cpu: '2', memory: '2Gi' },
      false,
    ],
    [
      'either resource up, memory holds',
      [eitherUp],
      { cpu: '500m', memory: '2Gi' },
      true,
    ],
    [
      'either resource up, neither holds',
      [eitherUp],
      { cpu: '500m', memory: '1Gi' },
      false,
    ],
    ['no requirements', [], { cpu: '500m', memory: '1Gi' }, true],
  ])('%s → %s', (_name, requirements, target, expected) => {
    expect(meets(requirements, requests, target)).toBe(expected);
  });

  it('a missing target counts as 0', () => {
    expect(meets([memoryDown], requests, { cpu: '1' })).toBe(true);
  });

  it('admits a container without a CPU or a memory request', () => {
    expect(meets([cpuUp], { cpu: '1' }, { cpu: '1' })).toBe(true);
    expect(meets([cpuUp], { memory: '1Gi' }, { cpu: '1' })).toBe(true);
  });

  it('needs one admitted container among those with a recommendation', () => {
    const vpa = vpaWith([entry('a', { cpu: '1' }), entry('b', { cpu: '2' })], {
      evictionRequirements: [cpuUp],
    });
    const pod = podWith([
      container('a', requests),
      container('b', requests),
      container('c', { cpu: '1' }),
    ]);
    expect(
      meetsEvictionRequirements(pod, vpa, vpa.status?.recommendation),
    ).toBe(true);
    const onlyA = { containerRecommendations: [entry('a', { cpu: '1' })] };
    expect(meetsEvictionRequirements(pod, vpa, onlyA)).toBe(false);
  });

  it('admits everything for a VPA without updatePolicy', () => {
    const vpa = vpaWith([entry('app', { cpu: '1' })], { noUpdatePolicy: true });
    expect(
      meetsEvictionRequirements(
        podWith([container('app', requests)]),
        vpa,
        undefined,
      ),
    ).toBe(true);
  });
});
