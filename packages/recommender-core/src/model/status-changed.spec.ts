import type { VerticalPodAutoscalerStatus } from '@tandem/vpa-api';
import { statusChanged } from './status-changed.js';

const status: VerticalPodAutoscalerStatus = {
  recommendation: {
    containerRecommendations: [
      {
        containerName: 'app',
        target: { cpu: '1', memory: '250Mi' },
        lowerBound: { cpu: '500m', memory: '250Mi' },
        upperBound: { cpu: '2', memory: '1Gi' },
        uncappedTarget: { cpu: '1', memory: '250Mi' },
      },
    ],
  },
  conditions: [
    {
      type: 'RecommendationProvided',
      status: 'True',
      lastTransitionTime: '2024-01-01T00:00:00Z',
    },
  ],
  observedGeneration: 2,
};

const withTarget = (target: Record<string, string>) => ({
  ...status,
  recommendation: {
    containerRecommendations: [
      {
        ...status.recommendation?.containerRecommendations?.[0],
        containerName: 'app',
        target,
      },
    ],
  },
});

describe('statusChanged', () => {
  it('is false for the same status, however quantities and times are written', () => {
    expect(statusChanged(status, structuredClone(status))).toBe(false);
    expect(
      statusChanged(status, withTarget({ cpu: '1000m', memory: '262144000' })),
    ).toBe(false);
    expect(
      statusChanged(status, {
        ...status,
        conditions: [
          {
            type: 'RecommendationProvided',
            status: 'True',
            lastTransitionTime: '2024-01-01T00:00:00.000Z',
            reason: '',
          },
        ],
      }),
    ).toBe(false);
  });

  it('is true when a value, a condition or the generation changed', () => {
    expect(
      statusChanged(status, withTarget({ cpu: '1001m', memory: '250Mi' })),
    ).toBe(true);
    expect(statusChanged(status, withTarget({ cpu: '1' }))).toBe(true);
    expect(statusChanged(status, { ...status, observedGeneration: 3 })).toBe(
      true,
    );
    expect(
      statusChanged(status, {
        ...status,
        conditions: [{ type: 'RecommendationProvided', status: 'False' }],
      }),
    ).toBe(true);
  });

  it('tells a missing recommendation from an empty one, but not an empty list from none', () => {
    expect(statusChanged(undefined, { recommendation: {} })).toBe(true);
    expect(statusChanged({}, { recommendation: {} })).toBe(true);
    expect(
      statusChanged(
        { recommendation: { containerRecommendations: [] } },
        { recommendation: {} },
      ),
    ).toBe(false);
  });
});
