import type { VerticalPodAutoscaler } from '@tandem/vpa-api';
import {
  DEFAULT_STRATEGY_SETTINGS,
  vpaStrategyState,
} from './vpa-strategy-state.js';

function vpa(annotations: Record<string, string>): VerticalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: { name: 'web', namespace: 'shop', annotations },
    spec: {
      targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    },
  };
}

describe('vpaStrategyState', () => {
  it('gives the previous state back whole while the tandem.dev annotations stay', () => {
    const first = vpaStrategyState(
      vpa({ 'tandem.dev/strategy': 'autopilot', team: 'a' }),
      DEFAULT_STRATEGY_SETTINGS,
      undefined,
    );
    const again = vpaStrategyState(
      vpa({ 'tandem.dev/strategy': 'autopilot', team: 'b' }),
      DEFAULT_STRATEGY_SETTINGS,
      first,
    );
    expect(again).toBe(first);
  });

  it('reads changed annotations again, keeping the own state only for the same strategy', () => {
    const first = vpaStrategyState(
      vpa({ 'tandem.dev/strategy': 'autopilot' }),
      DEFAULT_STRATEGY_SETTINGS,
      undefined,
    );
    const sameStrategy = vpaStrategyState(
      vpa({ 'tandem.dev/strategy': 'autopilot', 'tandem.dev/margin': '0.15' }),
      DEFAULT_STRATEGY_SETTINGS,
      first,
    );
    expect(sameStrategy).not.toBe(first);
    expect(sameStrategy.strategy).toBe(first.strategy);
    expect(sameStrategy.live).toBe(first.live);
    const otherParameters = vpaStrategyState(
      vpa({ 'tandem.dev/strategy': 'autopilot', 'tandem.dev/margin': '0.3' }),
      DEFAULT_STRATEGY_SETTINGS,
      sameStrategy,
    );
    expect(otherParameters.strategy.parameters['margin']).toBe(0.3);
    expect(otherParameters.live).not.toBe(first.live);
  });

  it('makes VPAs with equal strategies share one strategy object', () => {
    const read = (annotations: Record<string, string>) =>
      vpaStrategyState(vpa(annotations), DEFAULT_STRATEGY_SETTINGS, undefined)
        .strategy;
    expect(read({ 'tandem.dev/strategy': 'tandem' })).toBe(
      read({ 'tandem.dev/strategy': 'tandem' }),
    );
    expect(read({})).toBe(read({ 'tandem.dev/strategy': 'upstream' }));
  });

  it('runs the default strategy, with the reason, for annotations that do not read', () => {
    const state = vpaStrategyState(
      vpa({ 'tandem.dev/strategy': 'autopilto' }),
      DEFAULT_STRATEGY_SETTINGS,
      undefined,
    );
    expect(state.strategy.name).toBe('upstream');
    expect(state.problem).toBe(
      "metadata.annotations[tandem.dev/strategy]: unknown strategy 'autopilto': choose one of upstream, autopilot, vivo, tandem",
    );
  });
});
