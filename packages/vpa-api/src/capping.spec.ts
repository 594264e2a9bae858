import { capRecommendationToPolicy } from './capping.js';
import type {
  ContainerResourcePolicy,
  RecommendedContainerResources,
  VerticalPodAutoscaler,
} from './types.js';

function vpaWithPolicies(
  ...containerPolicies: ContainerResourcePolicy[]
): VerticalPodAutoscaler {
  return {
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      resourcePolicy: { containerPolicies },
    },
  };
}

describe('capRecommendationToPolicy', () => {
  it('vector 20: caps target, lowerBound and upperBound to minAllowed/maxAllowed', () => {
    const recommendation: RecommendedContainerResources = {
      containerName: 'ctr-name',
      target: { cpu: '300', memory: '50000' },
      lowerBound: { cpu: '200', memory: '43000' },
      upperBound: { cpu: '500', memory: '55000' },
    };
    const vpa = vpaWithPolicies({
      containerName: 'ctr-name',
      minAllowed: { cpu: '400', memory: '40000' },
      maxAllowed: { cpu: '450', memory: '45000' },
    });

    const capped = capRecommendationToPolicy([recommendation], vpa);

    expect(capped.containerRecommendations).toEqual([
      {
        containerName: 'ctr-name',
        target: { cpu: '400', memory: '45k' },
        lowerBound: { cpu: '400', memory: '43k' },
        upperBound: { cpu: '450', memory: '45k' },
      },
    ]);
    expect(capped.annotations).toEqual({
      'ctr-name': ['cpu capped to minAllowed', 'memory capped to maxAllowed'],
    });
  });

  const recommendation: RecommendedContainerResources = {
    containerName: 'foo',
    target: { cpu: '42m', memory: '42Mi' },
    lowerBound: { cpu: '31m', memory: '31Mi' },
    upperBound: { cpu: '53m', memory: '53Mi' },
    uncappedTarget: { cpu: '42m', memory: '42Mi' },
  };

  it.each<
    [
      string,
      ContainerResourcePolicy | undefined,
      Record<string, string>,
      RecommendedContainerResources,
    ]
  >([
    ['no policy, no global max', undefined, {}, recommendation],
    [
      'policy minAllowed',
      { containerName: 'foo', minAllowed: { cpu: '50m', memory: '50Mi' } },
      {},
      {
        ...recommendation,
        target: { cpu: '50m', memory: '50Mi' },
        lowerBound: { cpu: '50m', memory: '50Mi' },
      },
    ],
    [
      'policy maxAllowed',
      { containerName: 'foo', maxAllowed: { cpu: '40m', memory: '40Mi' } },
      {},
      {
        ...recommendation,
        target: { cpu: '40m', memory: '40Mi' },
        upperBound: { cpu: '40m', memory: '40Mi' },
      },
    ],
    [
      'global max alone',
      undefined,
      { cpu: '40m', memory: '40Mi' },
      {
        ...recommendation,
        target: { cpu: '40m', memory: '40Mi' },
        upperBound: { cpu: '40m', memory: '40Mi' },
      },
    ],
    [
      'policy minAllowed with global max',
      { containerName: 'foo', minAllowed: { cpu: '35m', memory: '35Mi' } },
      { cpu: '50m', memory: '50Mi' },
      {
        ...recommendation,
        lowerBound: { cpu: '35m', memory: '35Mi' },
        upperBound: { cpu: '50m', memory: '50Mi' },
      },
    ],
    [
      'global max fills only resources missing from maxAllowed',
      { containerName: 'foo', maxAllowed: { cpu: '40m' } },
      { memory: '40Mi' },
      {
        ...recommendation,
        target: { cpu: '40m', memory: '40Mi' },
        upperBound: { cpu: '40m', memory: '40Mi' },
      },
    ],
    [
      'policy maxAllowed beats a lower global max for the same resource',
      { containerName: 'foo', maxAllowed: { cpu: '40m' } },
      { cpu: '30m', memory: '30Mi' },
      {
        ...recommendation,
        target: { cpu: '40m', memory: '30Mi' },
        lowerBound: { cpu: '31m', memory: '30Mi' },
        upperBound: { cpu: '40m', memory: '30Mi' },
      },
    ],
  ])('%s', (_name, policy, globalMax, expected) => {
    const vpa = policy ? vpaWithPolicies(policy) : vpaWithPolicies();
    const capped = capRecommendationToPolicy([recommendation], vpa, globalMax);
    expect(capped.containerRecommendations).toEqual([expected]);
  });

  it('ignores zero minAllowed and maxAllowed', () => {
    const vpa = vpaWithPolicies({
      containerName: 'foo',
      minAllowed: { cpu: '0', memory: '0' },
      maxAllowed: { cpu: '0m', memory: '0Mi' },
    });
    const capped = capRecommendationToPolicy([recommendation], vpa, {
      cpu: '10m',
    });
    expect(capped.containerRecommendations).toEqual([recommendation]);
    expect(capped.annotations).toEqual({});
  });

  it('falls back to the * policy and prefers an exact container name', () => {
    const vpa = vpaWithPolicies(
      { containerName: '*', maxAllowed: { cpu: '10m' } },
      { containerName: 'foo', maxAllowed: { cpu: '20m' } },
    );
    const capped = capRecommendationToPolicy(
      [recommendation, { ...recommendation, containerName: 'bar' }],
      vpa,
    );
    expect(capped.containerRecommendations.map((r) => r.target['cpu'])).toEqual(
      ['20m', '10m'],
    );
    expect(capped.annotations).toEqual({
      foo: ['cpu capped to maxAllowed'],
      bar: ['cpu capped to maxAllowed'],
    });
  });

  it('compares exactly and writes canonical text', () => {
    const vpa = vpaWithPolicies({
      containerName: 'foo',
      minAllowed: { memory: '0.5Gi' },
    });
    const capped = capRecommendationToPolicy(
      [{ containerName: 'foo', target: { memory: '536870911' } }],
      vpa,
    );
    expect(capped.containerRecommendations[0]?.target).toEqual({
      memory: '512Mi',
    });
  });

  it('returns a container without any bound as given, without reformatting it', () => {
    const input = { containerName: 'foo', target: { memory: '0.5Gi' } };
    const capped = capRecommendationToPolicy(
      [input],
      vpaWithPolicies({ containerName: 'foo', mode: 'Auto' }),
    );
    expect(capped.containerRecommendations[0]).toBe(input);
    expect(capped.annotations).toEqual({});
  });

  it('never changes uncappedTarget, nor its inputs', () => {
    const vpa = vpaWithPolicies({
      containerName: 'foo',
      maxAllowed: { cpu: '1m', memory: '1Mi' },
    });
    const input = structuredClone(recommendation);
    const capped = capRecommendationToPolicy([input], vpa);
    expect(capped.containerRecommendations[0]?.uncappedTarget).toEqual({
      cpu: '42m',
      memory: '42Mi',
    });
    expect(input).toEqual(recommendation);
  });
});
