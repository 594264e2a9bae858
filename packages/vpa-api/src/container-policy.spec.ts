import {
  DEFAULT_CONTROLLED_RESOURCES,
  getContainerPolicy,
  getControlledResources,
  getControlledValues,
  getUpdateMode,
} from './container-policy.js';
import type {
  ContainerResourcePolicy,
  PodUpdatePolicy,
  VerticalPodAutoscaler,
} from './types.js';

function vpa(
  containerPolicies?: ContainerResourcePolicy[],
  updatePolicy?: PodUpdatePolicy,
): VerticalPodAutoscaler {
  return {
    spec: {
      targetRef: { kind: 'Deployment', name: 'web' },
      ...(containerPolicies && { resourcePolicy: { containerPolicies } }),
      ...(updatePolicy && { updatePolicy }),
    },
  };
}

describe('getContainerPolicy', () => {
  const exact: ContainerResourcePolicy = { containerName: 'app', mode: 'Off' };
  const wildcard: ContainerResourcePolicy = {
    containerName: '*',
    mode: 'Auto',
  };

  it('prefers the exact name, wherever it is listed', () => {
    expect(getContainerPolicy(vpa([wildcard, exact]), 'app')).toBe(exact);
    expect(getContainerPolicy(vpa([exact, wildcard]), 'app')).toBe(exact);
  });

  it('falls back to the * policy (the last one, as upstream), else none', () => {
    const laterWildcard: ContainerResourcePolicy = {
      containerName: '*',
      mode: 'Off',
    };
    expect(getContainerPolicy(vpa([exact, wildcard]), 'sidecar')).toBe(
      wildcard,
    );
    expect(getContainerPolicy(vpa([wildcard, laterWildcard]), 'sidecar')).toBe(
      laterWildcard,
    );
    expect(getContainerPolicy(vpa([exact]), 'sidecar')).toBeUndefined();
    expect(getContainerPolicy(vpa(), 'app')).toBeUndefined();
  });
});

describe('policy defaults', () => {
  it('controls cpu and memory unless the policy lists resources (even none)', () => {
    expect(getControlledResources(undefined)).toEqual(['cpu', 'memory']);
    expect(getControlledResources({ containerName: 'app' })).toBe(
      DEFAULT_CONTROLLED_RESOURCES,
    );
    expect(
      getControlledResources({
        containerName: 'app',
        controlledResources: ['memory'],
      }),
    ).toEqual(['memory']);
    expect(
      getControlledResources({ containerName: 'app', controlledResources: [] }),
    ).toEqual([]);
  });

  it('controls requests and limits unless told RequestsOnly', () => {
    expect(getControlledValues(undefined)).toBe('RequestsAndLimits');
    expect(
      getControlledValues({
        containerName: 'app',
        controlledValues: 'RequestsOnly',
      }),
    ).toBe('RequestsOnly');
  });

  it('updates in Recreate mode when no mode is set', () => {
    expect(getUpdateMode(vpa())).toBe('Recreate');
    expect(getUpdateMode(vpa(undefined, {}))).toBe('Recreate');
    expect(getUpdateMode(vpa(undefined, { updateMode: 'Initial' }))).toBe(
      'Initial',
    );
  });
});
