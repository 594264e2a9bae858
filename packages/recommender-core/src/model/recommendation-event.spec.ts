import type { VerticalPodAutoscalerStatus } from '@tandem/vpa-api';
import { recommendationEvent } from './recommendation-event.js';

function status(
  targets: Record<string, Record<string, string>>,
): VerticalPodAutoscalerStatus {
  return {
    recommendation: {
      containerRecommendations: Object.entries(targets).map(
        ([containerName, target]) => ({
          containerName,
          target,
          lowerBound: target,
          upperBound: target,
        }),
      ),
    },
  };
}

describe('recommendationEvent', () => {
  it('names the first recommendation RecommendationProvided, with its targets', () => {
    expect(
      recommendationEvent(
        { conditions: [] },
        status({ app: { cpu: '0.25', memory: '262144k' } }),
        undefined,
      ),
    ).toEqual({
      reason: 'RecommendationProvided',
      message: 'First recommendation: app: cpu 250m, memory 262144k',
    });
  });

  it('lists each container and resource whose target moved by 10 % or more', () => {
    expect(
      recommendationEvent(
        status({
          app: { cpu: '400m', memory: '1Gi' },
          sidecar: { cpu: '100m', memory: '100Mi' },
        }),
        status({
          app: { cpu: '210m', memory: '1.05Gi' },
          sidecar: { cpu: '100m', memory: '110Mi' },
        }),
        undefined,
      ),
    ).toEqual({
      reason: 'RecommendationChanged',
      message:
        'Target moved by 10 % or more: app: cpu 400m -> 210m; sidecar: memory 100Mi -> 110Mi',
    });
  });

  it('names the strategy the VPA chose', () => {
    expect(
      recommendationEvent(
        status({ app: { cpu: '1' } }),
        status({ app: { cpu: '2' } }),
        'autopilot',
      )?.message,
    ).toBe(
      'Target moved by 10 % or more (strategy autopilot): app: cpu 1 -> 2',
    );
  });

  it('says nothing of a move below the threshold, of bounds alone, or of no recommendation', () => {
    const before = status({ app: { cpu: '1', memory: '1Gi' } });
    expect(
      recommendationEvent(
        before,
        status({ app: { cpu: '1099m', memory: '1Gi' } }),
        undefined,
      ),
    ).toBeUndefined();
    expect(
      recommendationEvent(
        before,
        {
          recommendation: {
            containerRecommendations: [
              {
                containerName: 'app',
                target: { cpu: '1', memory: '1Gi' },
                upperBound: { cpu: '9', memory: '9Gi' },
              },
            ],
          },
        },
        undefined,
      ),
    ).toBeUndefined();
    expect(recommendationEvent(before, { conditions: [] }, undefined)).toBe(
      undefined,
    );
  });

  it('takes the threshold it is given', () => {
    expect(
      recommendationEvent(
        status({ app: { cpu: '1' } }),
        status({ app: { cpu: '1050m' } }),
        undefined,
        0.05,
      )?.message,
    ).toBe('Target moved by 5 % or more: app: cpu 1 -> 1050m');
  });
});
