import fc from 'fast-check';
import { UpdateMode } from '@tandem/vpa-api';
import {
  replicaOwner,
  replicaOwnerKey,
  type ReplicaOwner,
} from './replica-groups.js';
import { groupReplicas } from './replica-grouping.js';
import { isResizeOngoing } from './resize-state.js';
import {
  UpdateRestriction,
  type ReplicaGroupStats,
} from './update-restriction.js';
import {
  container,
  NOW,
  podWith,
  resizeCondition,
  vpaWith,
} from './updater.fixtures.js';
import { isLivePod, isPending, podId, type UpdaterPod } from './updater-pod.js';

const OWNERS = [
  { kind: 'ReplicaSet', name: 'web-1' },
  { kind: 'ReplicaSet', name: 'web-2' },
  { kind: 'StatefulSet', name: 'db' },
  { kind: 'Job', name: 'batch' },
  // Not a kind the updater reads replicas of: no group without a top-most controller.
  { kind: 'CloneSet', name: 'clones' },
];

const podArbitrary = fc
  .record({
    // Few names, so that the same pod id comes in two groups now and then.
    name: fc.constantFrom('a', 'b', '__proto__', 'constructor'),
    owner: fc.option(fc.constantFrom(...OWNERS), { nil: undefined }),
    phase: fc.constantFrom('Running', 'Pending', 'Succeeded', 'Failed'),
    scheduled: fc.boolean(),
    resizing: fc.boolean(),
  })
  .map(({ name, owner, phase, scheduled, resizing }) =>
    podWith([container('app', { cpu: '1' })], {
      name,
      owner: owner ?? null,
      phase,
      nodeName: scheduled ? 'node-a' : '',
      ...(resizing && {
        conditions: [resizeCondition('PodResizeInProgress')],
      }),
    }),
  );

/**
 * The counts by pod id as `UpdateRestriction.create` worked them out before it read a
 * grouping: one map entry per live pod, a pod id in two kept groups counting in the last.
 */
function countsByPodReference(
  pods: readonly UpdaterPod[],
  ownerOf: (pod: UpdaterPod) => ReplicaOwner | undefined,
  configured: (owner: ReplicaOwner) => number | undefined,
  required: number,
): Map<string, Partial<ReplicaGroupStats>> {
  const members = new Map<
    string,
    { owner: ReplicaOwner; pods: UpdaterPod[] }
  >();
  for (const pod of pods.filter(isLivePod)) {
    const owner = ownerOf(pod);
    if (owner === undefined) continue;
    const key = replicaOwnerKey(owner);
    const group = members.get(key) ?? { owner, pods: [] };
    group.pods.push(pod);
    members.set(key, group);
  }
  const byPod = new Map<string, Partial<ReplicaGroupStats>>();
  for (const { owner, pods: live } of members.values()) {
    if (live.length < required) continue;
    const count = owner.kind === 'Job' ? live.length : configured(owner);
    if (count === undefined || !(count > 0)) continue;
    const pending = live.filter(isPending).length;
    const stats = {
      owner,
      configured: count,
      running: live.length - pending,
      pending,
      resizing: live.filter(isResizeOngoing).length,
    };
    for (const pod of live) byPod.set(podId(pod), stats);
  }
  return byPod;
}

function countsOf(
  group: Readonly<ReplicaGroupStats> | undefined,
): Partial<ReplicaGroupStats> | undefined {
  if (group === undefined) return undefined;
  const { owner, configured, running, pending, resizing } = group;
  return { owner, configured, running, pending, resizing };
}

describe('UpdateRestriction on a grouping', () => {
  it('gives every pod the counts the per-pod map gave, grouping kept or not (property)', () => {
    fc.assert(
      fc.property(
        fc.array(podArbitrary, { maxLength: 14 }),
        fc.array(fc.option(fc.nat(6), { nil: undefined }), {
          minLength: OWNERS.length,
          maxLength: OWNERS.length,
        }),
        fc.integer({ min: 1, max: 3 }),
        (pods, counts, minReplicas) => {
          const configured = (owner: ReplicaOwner) =>
            counts[OWNERS.findIndex(({ name }) => name === owner.name)];
          const input = {
            vpa: vpaWith([], { mode: UpdateMode.Recreate, minReplicas }),
            now: NOW,
            configuredReplicas: configured,
          };
          const fresh = UpdateRestriction.create({ ...input, pods });
          const kept = UpdateRestriction.create({
            ...input,
            pods: [],
            grouping: groupReplicas(pods, replicaOwner),
          });
          const reference = countsByPodReference(
            pods,
            (pod) => replicaOwner(pod),
            configured,
            minReplicas,
          );
          for (const pod of pods) {
            // A copy of the pod object is found by its id, as before.
            const copy = structuredClone(pod);
            expect(countsOf(fresh.groupOf(copy))).toEqual(
              reference.get(podId(pod)),
            );
            expect(countsOf(kept.groupOf(pod))).toEqual(
              reference.get(podId(pod)),
            );
            expect(kept.canEvict(pod)).toBe(fresh.canEvict(pod));
            expect(kept.isGrouped(pod)).toBe(reference.has(podId(pod)));
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('counts a pod listed in two groups in the last group that has counts', () => {
    const twice = podWith([container('app', { cpu: '1' })], { name: 'a' });
    const other = { ...twice, metadata: { ...twice.metadata } };
    const owners = new Map<UpdaterPod, ReplicaOwner>([
      [twice, { namespace: 'demo', kind: 'ReplicaSet', name: 'web-1' }],
      [other, { namespace: 'demo', kind: 'ReplicaSet', name: 'web-2' }],
    ]);
    const grouping = groupReplicas([twice, other], (pod) => owners.get(pod));
    expect(grouping.sharedIds.get('demo/a')).toEqual([0, 1]);
    const restriction = UpdateRestriction.create({
      vpa: vpaWith([], { mode: UpdateMode.Recreate, minReplicas: 1 }),
      pods: [],
      grouping,
      now: NOW,
      configuredReplicas: (owner) => (owner.name === 'web-1' ? 3 : undefined),
    });
    expect(restriction.groupOf(other)?.owner.name).toBe('web-1');
  });
});
