import fc from 'fast-check';
import { replicaOwner, replicaOwnerKey } from './replica-groups.js';
import { UpdateRestriction } from './update-restriction.js';
import { NOW, podWith, replicas, vpaWith } from './updater.fixtures.js';

const CLONE_SET = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  name: 'web',
};

describe('replicaOwner', () => {
  it('groups a pod by its well-known controlling owner, whatever is above it', () => {
    expect(replicaOwner(podWith([]), CLONE_SET)).toEqual({
      namespace: 'demo',
      kind: 'ReplicaSet',
      name: 'web-1',
    });
  });

  it('groups a pod of any other owner by its top-most controller, read through /scale', () => {
    const pod = podWith([], { owner: { kind: 'CloneSet', name: 'web' } });
    const owner = replicaOwner(pod, CLONE_SET);
    expect(owner).toEqual({
      namespace: 'demo',
      kind: 'CloneSet',
      name: 'web',
      apiVersion: 'apps.kruise.io/v1alpha1',
      scalable: true,
    });
    expect(owner && replicaOwnerKey(owner)).toBe(
      'demo/apps.kruise.io/v1alpha1/CloneSet/web',
    );
  });

  it('leaves a pod without a group when its owner is unknown and nothing scalable is above it', () => {
    const pod = podWith([], { owner: { kind: 'CloneSet', name: 'web' } });
    expect(replicaOwner(pod)).toBeUndefined();
    expect(
      replicaOwner(pod, { kind: 'CloneSet', name: 'web' }),
    ).toBeUndefined();
    expect(replicaOwner(podWith([], { owner: null }), CLONE_SET)).toBe(
      undefined,
    );
  });

  it('never keys a scalable owner like a well-known one of the same kind and name', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('ReplicaSet', 'StatefulSet', 'Job'),
        fc.string({ minLength: 1 }),
        (kind, name) => {
          const known = replicaOwner(podWith([], { owner: { kind, name } }));
          const scalable = replicaOwner(
            podWith([], { owner: { kind: 'Other', name } }),
            { apiVersion: 'example.com/v1', kind, name },
          );
          return (
            known !== undefined &&
            scalable !== undefined &&
            replicaOwnerKey(known) !== replicaOwnerKey(scalable)
          );
        },
      ),
    );
  });
});

describe('UpdateRestriction over a scalable owner', () => {
  const pods = replicas(4, { owner: { kind: 'CloneSet', name: 'web' } });
  const create = (configured: number | undefined) =>
    UpdateRestriction.create({
      vpa: vpaWith([]),
      pods,
      now: NOW,
      configuredReplicas: (owner) =>
        'scalable' in owner ? configured : undefined,
      ownerOf: (pod) => replicaOwner(pod, CLONE_SET),
    });

  it('budgets the group like a ReplicaSet of the scale’s replicas', () => {
    const restriction = create(4);
    let evicted = 0;
    for (const pod of pods)
      if (restriction.canEvict(pod)) {
        restriction.recordEviction(pod);
        evicted += 1;
      }
    expect(evicted).toBe(2);
    expect(restriction.groupOf(pods[0] as (typeof pods)[0])).toMatchObject({
      configured: 4,
      tolerance: 2,
      evicted: 2,
    });
  });

  it('leaves the group alone when the scale’s replicas are unknown', () => {
    const restriction = create(undefined);
    expect(pods.some((pod) => restriction.isGrouped(pod))).toBe(false);
  });
});
