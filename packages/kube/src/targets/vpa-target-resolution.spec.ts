import { plainConnection } from '../connection/kube-connection.js';
import {
  parseLabelSelector,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import type { WatchLike } from '../list-watch-cache.js';
import {
  vpaTargetResolution,
  type VpaTargetResolution,
} from './vpa-target-resolution.js';

/** A watch that stays open and quiet until it is aborted. */
const quietWatch: WatchLike = {
  watch: async () => ({ abort: () => undefined }),
};

function vpa(apiVersion: string, kind: string): VerticalPodAutoscaler {
  return {
    apiVersion: 'autoscaling.k8s.io/v1',
    kind: 'VerticalPodAutoscaler',
    metadata: { namespace: 'team-a', name: 'web-vpa' },
    spec: { targetRef: { apiVersion, kind, name: 'web' } },
  };
}

const ANSWERS: Record<string, unknown> = {
  '/apis/apps/v1/namespaces/team-a/deployments': {
    metadata: { resourceVersion: '1' },
    items: [
      {
        metadata: { namespace: 'team-a', name: 'web', resourceVersion: '1' },
        spec: { selector: { matchLabels: { app: 'web' } } },
      },
    ],
  },
  '/apis/apps/v1/namespaces/team-a/replicasets': {
    metadata: { resourceVersion: '1' },
    items: [],
  },
  '/apis/argoproj.io/v1alpha1': {
    resources: [
      { name: 'rollouts', kind: 'Rollout' },
      { name: 'rollouts/scale', kind: 'Scale' },
    ],
  },
  '/apis/argoproj.io/v1alpha1/namespaces/team-a/rollouts/web/scale': {
    status: { selector: 'app=rollout' },
  },
};

describe('vpaTargetResolution', () => {
  let gets: string[];
  let resolution: VpaTargetResolution;

  beforeEach(() => {
    gets = [];
    resolution = vpaTargetResolution({
      connection: plainConnection('http://127.0.0.1:1'),
      namespace: 'team-a',
      onError: () => undefined,
      get: async (path) => {
        gets.push(path);
        if (!(path in ANSWERS))
          throw Object.assign(new Error('not found'), { code: 404 });
        return ANSWERS[path];
      },
      watch: quietWatch,
      // Unpaginated: one GET a collection, the paths ANSWERS holds.
      listPageSize: 0,
    });
  });
  afterEach(() => resolution.stop());

  it('resolves a well-known controller from its cache, started on first use', async () => {
    expect(resolution.hasSynced()).toBe(true);
    await expect(
      resolution.resolve(vpa('apps/v1', 'Deployment')),
    ).resolves.toEqual({ selector: { matchLabels: { app: 'web' } } });
    expect(gets).toEqual(['/apis/apps/v1/namespaces/team-a/deployments']);
    expect(resolution.hasSynced()).toBe(true);
  });

  it('resolves any other kind through its scale subresource, reusing what it read', async () => {
    const rollout = vpa('argoproj.io/v1alpha1', 'Rollout');
    const expected = { selector: parseLabelSelector('app=rollout') };
    await expect(resolution.resolve(rollout)).resolves.toEqual(expected);
    await expect(resolution.resolve(rollout)).resolves.toEqual(expected);
    expect(gets).toEqual([
      '/apis/argoproj.io/v1alpha1',
      '/apis/argoproj.io/v1alpha1/namespaces/team-a/rollouts/web/scale',
    ]);
  });

  it("warms the caches a target kind's pods need, and waits only for well-known kinds", async () => {
    resolution.warmUp(['Deployment', 'Rollout']);
    expect(gets).toEqual([
      '/apis/apps/v1/namespaces/team-a/deployments',
      '/apis/apps/v1/namespaces/team-a/replicasets',
    ]);
    await resolution.cachesSynced(['Deployment', 'ReplicaSet', 'Rollout']);
    expect(resolution.hasSynced()).toBe(true);
  });

  it("walks a pod's owner to the top-most controller through the same readers", async () => {
    await expect(
      resolution.topMostController('team-a', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
      }),
    ).resolves.toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
    });
  });

  it('reports a missing target as unsupported', async () => {
    await expect(
      resolution.resolve(vpa('argoproj.io/v1', 'Rollout')),
    ).resolves.toEqual({
      unsupported:
        'Cannot read targetRef. Reason: the API server does not serve argoproj.io/v1',
    });
  });
});
