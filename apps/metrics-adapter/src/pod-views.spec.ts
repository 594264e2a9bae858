import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { podViews } from './pod-views.js';

const pod = (name: string): V1Pod => ({
  metadata: { name, namespace: 'shop', labels: { app: 'web' } },
  spec: {
    containers: [{ name: 'app', resources: { requests: { cpu: '200m' } } }],
  },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True' }],
  },
});

const containers = (cpu: string): V1Container[] => [
  { name: 'app', resources: { requests: { cpu } } },
];

/** Templates whose revision and containers the test sets, counting lookups. */
function templates(initial: V1Container[] | undefined) {
  const state = { revision: 0, containers: initial, lookups: 0 };
  return {
    state,
    source: {
      revision: (namespace: string) =>
        namespace === 'shop' ? state.revision : -1,
      containersOf: () => {
        state.lookups += 1;
        return state.containers;
      },
    },
  };
}

describe('podViews', () => {
  it('keeps a pod’s view, and its identity, while neither the pod nor the revision changes', () => {
    const { state, source } = templates(containers('500m'));
    const viewOf = podViews(source);
    const web = pod('web-1');
    const first = viewOf(web);
    expect(viewOf(web)).toBe(first);
    expect(state.lookups).toBe(1);
    expect(first.templateContainers?.[0]?.requests).toEqual({ cpu: '500m' });
  });

  it('looks the template up again on a new revision, keeping the view when its containers are the same', () => {
    const { state, source } = templates(containers('500m'));
    const viewOf = podViews(source);
    const web = pod('web-1');
    const first = viewOf(web);
    state.revision = 1;
    expect(viewOf(web)).toBe(first);
    expect(state.lookups).toBe(2);
    state.revision = 2;
    state.containers = containers('1');
    const changed = viewOf(web);
    expect(changed).not.toBe(first);
    expect(changed.templateContainers?.[0]?.requests).toEqual({ cpu: '1' });
  });

  it('makes a new view for a new pod object (the cache replaces a pod on every change)', () => {
    const { source } = templates(undefined);
    const viewOf = podViews(source);
    const before = viewOf(pod('web-1'));
    const after = viewOf(pod('web-1'));
    expect(after).not.toBe(before);
    expect(after).toEqual(before);
  });
});
