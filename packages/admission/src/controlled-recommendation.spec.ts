import { vpaWith } from './admission.fixtures.js';
import { withControlledRecommendation } from './controlled-recommendation.js';

describe('withControlledRecommendation', () => {
  it('drops containers in mode Off and resources the policy does not control', () => {
    const vpa = vpaWith(
      [
        {
          containerName: 'app',
          target: { cpu: '1', memory: '1Gi', 'nvidia.com/gpu': '1' },
          lowerBound: { cpu: '500m', memory: '512Mi' },
          upperBound: { cpu: '2', memory: '2Gi' },
          uncappedTarget: { cpu: '1', memory: '1Gi' },
        },
        { containerName: 'proxy', target: { cpu: '10m' } },
        { containerName: 'other', target: { cpu: '20m', memory: '1Mi' } },
      ],
      {
        policies: [
          { containerName: 'app', controlledResources: ['memory'] },
          { containerName: 'proxy', mode: 'Off' },
        ],
      },
    );
    const before = structuredClone(vpa);
    expect(
      withControlledRecommendation(vpa).status?.recommendation
        ?.containerRecommendations,
    ).toEqual([
      {
        containerName: 'app',
        target: { memory: '1Gi' },
        lowerBound: { memory: '512Mi' },
        upperBound: { memory: '2Gi' },
        uncappedTarget: { cpu: '1', memory: '1Gi' },
      },
      { containerName: 'other', target: { cpu: '20m', memory: '1Mi' } },
    ]);
    expect(vpa).toEqual(before);
  });

  it('returns a VPA without recommendation as it is', () => {
    const vpa = vpaWith(undefined);
    expect(withControlledRecommendation(vpa)).toBe(vpa);
  });

  it('an explicit empty controlledResources controls nothing', () => {
    const vpa = vpaWith([{ containerName: 'app', target: { cpu: '1' } }], {
      policies: [{ containerName: '*', controlledResources: [] }],
    });
    expect(
      withControlledRecommendation(vpa).status?.recommendation
        ?.containerRecommendations,
    ).toEqual([{ containerName: 'app', target: {} }]);
  });
});
