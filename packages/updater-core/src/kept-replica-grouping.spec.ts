import fc from 'fast-check';
import type { ControllerReference } from '@tandem/admission';
import {
  groupReplicas,
  replicaOwner,
  replicaOwnerKey,
  type PodGroup,
  type ReplicaOwner,
  type UpdaterPod,
} from '@tandem/update-decisions';
import { keptReplicaGrouping } from './kept-replica-grouping.js';
import { podOf, resizeCondition } from './updater.fixtures.js';

const NOW = new Date('2026-03-01T12:00:00Z');

/**
 * Top-most controllers: 2 and 3 differ only in their API version, 3 and 4 only in their
 * name, 4 and 5 only in their kind. Only the CloneSet's pods, whose direct owner the
 * updater does not read replicas of, are grouped by them.
 */
const CONTROLLERS: readonly ControllerReference[] = [
  { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
  { kind: 'Deployment', name: 'api', apiVersion: 'apps/v1' },
  { kind: 'CloneSet', name: 'clones' },
  { kind: 'CloneSet', name: 'clones', apiVersion: 'apps.kruise.io/v1alpha1' },
  { kind: 'CloneSet', name: 'other', apiVersion: 'apps.kruise.io/v1alpha1' },
  { kind: 'Rollout', name: 'other', apiVersion: 'apps.kruise.io/v1alpha1' },
];

/** Pods of ReplicaSets, of a CloneSet that creates its pods itself, and of none. */
const POOL: readonly UpdaterPod[] = [
  podOf('web-1-a', NOW),
  podOf('web-1-b', NOW, { phase: 'Pending' }),
  podOf('web-1-c', NOW, { conditions: [resizeCondition('PodResizePending')] }),
  podOf('web-2-a', NOW, { owner: { kind: 'ReplicaSet', name: 'web-2' } }),
  podOf('web-2-b', NOW, { owner: { kind: 'ReplicaSet', name: 'web-2' } }),
  podOf('clones-a', NOW, { owner: { kind: 'CloneSet', name: 'clones' } }),
  podOf('clones-b', NOW, { owner: { kind: 'CloneSet', name: 'clones' } }),
  podOf('lone', NOW, { owner: null }),
  podOf('done', NOW, { phase: 'Succeeded' }),
  podOf('__proto__', NOW, { owner: { kind: 'ReplicaSet', name: 'web-2' } }),
];

interface DrawnGroup {
  controller: number;
  copied: boolean;
  pods: readonly { index: number; copy: boolean }[];
}

/** A VPA's groups as the cycle hands them over: pods of the pool, now and then a copy. */
const groupsArbitrary: fc.Arbitrary<DrawnGroup[]> = fc.array(
  fc.record({
    controller: fc.nat(CONTROLLERS.length - 1),
    // A fresh controller object each cycle, as the owner-chain walk may hand out.
    copied: fc.boolean(),
    pods: fc.array(
      fc.record({
        index: fc.nat(POOL.length - 1),
        // Mostly the same object as last cycle: then the grouping is kept.
        copy: fc.nat(9).map((draw) => draw === 0),
      }),
      { minLength: 1, maxLength: 5 },
    ),
  }),
  { minLength: 1, maxLength: 3 },
);

/** How a cycle's groups differ from the VPA's usual ones: mostly not at all. */
interface Variant {
  /** Controllers 2 to 5 each read as the next one. */
  otherController: boolean;
  lastGroupGone: boolean;
  lastPodGone: boolean;
  /** A pod of the pool added at the end of the first group. */
  added: number | undefined;
}

const variantArbitrary: fc.Arbitrary<Variant> = fc.record({
  otherController: fc.boolean(),
  lastGroupGone: fc.boolean(),
  lastPodGone: fc.boolean(),
  added: fc.option(fc.nat(POOL.length - 1), { nil: undefined }),
});

function varied(base: readonly DrawnGroup[], variant: Variant): DrawnGroup[] {
  const groups = base
    .slice(0, variant.lastGroupGone && base.length > 1 ? -1 : undefined)
    .map((group) => ({
      ...group,
      controller:
        variant.otherController && group.controller >= 2
          ? 2 + ((group.controller - 1) % 4)
          : group.controller,
    }));
  const [first, ...rest] = groups;
  if (first === undefined) return groups;
  const pods = [
    ...first.pods.slice(
      0,
      variant.lastPodGone && first.pods.length > 1 ? -1 : undefined,
    ),
    ...(variant.added === undefined
      ? []
      : [{ index: variant.added, copy: false }]),
  ];
  return [{ ...first, pods }, ...rest];
}

/** The groups with their pods; a copy is a new object each cycle, as a changed pod is. */
function groupsOf(
  drawn: readonly DrawnGroup[],
): PodGroup<ControllerReference>[] {
  return drawn.map(({ controller, copied, pods }) => {
    const reference = CONTROLLERS[controller] ?? { kind: '', name: '' };
    return {
      controller: copied ? { ...reference } : reference,
      pods: pods.map(({ index, copy }) => {
        const pod = POOL[index] ?? podOf('missing', NOW);
        return copy ? structuredClone(pod) : pod;
      }),
    };
  });
}

/**
 * What the VPA's pass worked out every cycle before the grouping was kept: each pod's
 * owner under the controller of the last group it is in, the distinct owners in the
 * order their first pod comes.
 */
function groupedEveryCycle(groups: readonly PodGroup<ControllerReference>[]) {
  const pods = groups.flatMap((group) => group.pods);
  const ownerOf = (pod: UpdaterPod): ReplicaOwner | undefined => {
    const last = groups.findLast((group) => group.pods.includes(pod));
    return last && replicaOwner(pod, last.controller);
  };
  const distinct = new Map<string, ReplicaOwner>();
  for (const pod of pods) {
    const owner = ownerOf(pod);
    if (owner !== undefined) distinct.set(replicaOwnerKey(owner), owner);
  }
  return {
    grouping: groupReplicas(pods, ownerOf),
    owners: [...distinct.values()],
  };
}

describe('keptReplicaGrouping', () => {
  it('answers as grouping afresh would, cycle after cycle (property)', () => {
    fc.assert(
      fc.property(
        groupsArbitrary,
        fc.array(variantArbitrary, { maxLength: 6 }),
        (base, variants) => {
          for (const variant of variants) {
            const groups = groupsOf(varied(base, variant));
            const { grouping, owners } = keptReplicaGrouping(groups);
            const fresh = groupedEveryCycle(groups);
            expect(grouping).toEqual(fresh.grouping);
            expect(owners).toEqual(fresh.owners);
            // The groups' pods are the objects handed over this cycle, not earlier ones.
            for (const group of grouping.groups)
              for (const pod of group.pods)
                expect(groups.some(({ pods }) => pods.includes(pod))).toBe(
                  true,
                );
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps the grouping for the same pods under the same controllers', () => {
    const web = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
    const first = keptReplicaGrouping([
      { controller: web, pods: POOL.slice(0, 3) },
    ]);
    const again = keptReplicaGrouping([
      { controller: { ...web }, pods: POOL.slice(0, 3) },
    ]);
    expect(again.grouping).toBe(first.grouping);
    const moved = keptReplicaGrouping([
      { controller: { ...web }, pods: POOL.slice(0, 2) },
    ]);
    expect(moved.grouping).not.toBe(first.grouping);
  });
});
