import {
  collectionPath,
  isWellKnownKind,
  wellKnownTarget,
} from './well-known-kinds.js';

describe('well-known controller kinds', () => {
  it("knows upstream's seven kinds, by exact kind name", () => {
    for (const kind of [
      'Deployment',
      'ReplicaSet',
      'StatefulSet',
      'DaemonSet',
      'Job',
      'CronJob',
      'ReplicationController',
    ])
      expect(isWellKnownKind(kind)).toBe(true);
    for (const kind of ['Rollout', 'deployment', 'Pod', 'toString', ''])
      expect(isWellKnownKind(kind)).toBe(false);
  });

  it.each([
    ['Deployment', undefined, '/apis/apps/v1/deployments'],
    ['CronJob', 'team-a', '/apis/batch/v1/namespaces/team-a/cronjobs'],
    ['ReplicationController', undefined, '/api/v1/replicationcontrollers'],
    [
      'ReplicationController',
      'team-a',
      '/api/v1/namespaces/team-a/replicationcontrollers',
    ],
  ] as const)('lists %s in %s at %s', (kind, namespace, path) => {
    expect(collectionPath(kind, namespace)).toBe(path);
  });

  it('reads the spec selector and the controlling owner', () => {
    const ownerReferences = [
      { kind: 'Deployment', name: 'web', controller: true },
    ];
    const selector = {
      matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }],
    };
    expect(
      wellKnownTarget('ReplicaSet', {
        metadata: { ownerReferences },
        spec: { selector },
      }),
    ).toEqual({ ownerReferences, selector });
  });

  it("selects a CronJob's pods by its job template labels", () => {
    expect(
      wellKnownTarget('CronJob', {
        spec: {
          jobTemplate: {
            spec: { template: { metadata: { labels: { app: 'report' } } } },
          },
        },
      }).selector,
    ).toEqual({ matchLabels: { app: 'report' } });
  });

  it("selects a ReplicationController's pods by its selector map", () => {
    expect(
      wellKnownTarget('ReplicationController', {
        spec: { selector: { app: 'legacy' } },
      }).selector,
    ).toEqual({ matchLabels: { app: 'legacy' } });
  });

  it('has no selector when the object names none', () => {
    expect(wellKnownTarget('Deployment', {}).selector).toBeUndefined();
    expect(wellKnownTarget('CronJob', { spec: {} }).selector).toBeUndefined();
  });
});
