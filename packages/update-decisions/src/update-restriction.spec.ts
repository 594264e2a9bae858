import fc from 'fast-check';
import { UpdateMode } from '@tandem/vpa-api';
import {
  UpdateRestriction,
  type UpdateRestrictionInput,
} from './update-restriction.js';
import {
  container,
  HOUR,
  MINUTE,
  NOW,
  at,
  podWith,
  replicas,
  resizeCondition,
  vpaWith,
  type VpaOptions,
} from './updater.fixtures.js';
import type { UpdaterPod } from './updater-pod.js';

function restrictionFor(
  pods: UpdaterPod[],
  configured: number | undefined,
  extra: Partial<UpdateRestrictionInput> & { vpaOptions?: VpaOptions } = {},
) {
  return UpdateRestriction.create({
    vpa: vpaWith([], extra.vpaOptions),
    pods,
    now: NOW,
    configuredReplicas: () => configured,
    ...extra,
  });
}

/** Evicts greedily in order; returns how many went. */
function evictAll(restriction: UpdateRestriction, pods: UpdaterPod[]): number {
  let evicted = 0;
  for (const pod of pods) {
    if (restriction.canEvict(pod)) {
      restriction.recordEviction(pod);
      evicted += 1;
    }
  }
  return evicted;
}

describe('UpdateRestriction', () => {
  describe('eviction tolerance (reference §8 vector 22, §5.5)', () => {
    const pods = replicas(5, {
      owner: { kind: 'ReplicationController', name: 'rc' },
    });

    it.each([
      [0.8, 4],
      [0.5, 2],
      [0.1, 1],
    ])(
      'RC with 5 replicas, 5 running, tolerance %s → %s evictions',
      (tolerance, count) => {
        const restriction = restrictionFor(pods, 5, {
          options: { evictionTolerance: tolerance },
        });
        expect(evictAll(restriction, pods)).toBe(count);
      },
    );

    it('refuses every eviction when the group is below min-replicas (10)', () => {
      expect(
        evictAll(
          restrictionFor(pods, 5, { options: { minReplicas: 10 } }),
          pods,
        ),
      ).toBe(0);
    });

    it('lets the VPA updatePolicy.minReplicas override the flag', () => {
      expect(
        evictAll(
          restrictionFor(pods, 5, { vpaOptions: { minReplicas: 6 } }),
          pods,
        ),
      ).toBe(0);
      const two = replicas(2);
      expect(
        evictAll(
          restrictionFor(two.slice(0, 1), 1, {
            vpaOptions: { minReplicas: 1 },
          }),
          two,
        ),
      ).toBe(1);
    });

    it('always lets Pending pods go, without counting them', () => {
      const mixed = [
        ...replicas(3),
        ...replicas(2, { phase: 'Pending' }).map((pod, index) => ({
          ...pod,
          metadata: { ...pod.metadata, name: `pending-${index}` },
        })),
      ];
      const restriction = restrictionFor(mixed, 5);
      // running 3, must keep 5 − 2 = 3 up: no running pod may go, both pending ones may.
      expect(mixed.map((pod) => restriction.canEvict(pod))).toEqual([
        false,
        false,
        false,
        true,
        true,
      ]);
      mixed.slice(3).forEach((pod) => restriction.recordEviction(pod));
      expect(restriction.groupOf(mixed[0] as UpdaterPod)?.evicted).toBe(0);
    });

    it('leaves groups out when the replica count is unknown or 0', () => {
      expect(evictAll(restrictionFor(pods, undefined), pods)).toBe(0);
      expect(evictAll(restrictionFor(pods, 0), pods)).toBe(0);
    });
  });

  describe('grouping (§5.5)', () => {
    it('counts a Job by its live pods, without asking for replicas', () => {
      const jobPods = replicas(4, { owner: { kind: 'Job', name: 'batch' } });
      const restriction = UpdateRestriction.create({
        vpa: vpaWith([]),
        pods: jobPods,
        now: NOW,
        configuredReplicas: () => {
          throw new Error('not asked for Jobs');
        },
      });
      expect(restriction.groupOf(jobPods[0] as UpdaterPod)).toMatchObject({
        configured: 4,
        tolerance: 2,
      });
      expect(evictAll(restriction, jobPods)).toBe(2);
    });

    it('asks for each owner separately and keeps their budgets apart', () => {
      const a = replicas(2, { owner: { kind: 'ReplicaSet', name: 'a' } });
      const b = replicas(4, { owner: { kind: 'StatefulSet', name: 'b' } });
      const asked: string[] = [];
      const restriction = UpdateRestriction.create({
        vpa: vpaWith([]),
        pods: [...a, ...b],
        now: NOW,
        configuredReplicas: (owner) => {
          asked.push(`${owner.kind}/${owner.name}`);
          return owner.name === 'a' ? 2 : 4;
        },
      });
      expect(asked.sort()).toEqual(['ReplicaSet/a', 'StatefulSet/b']);
      expect(evictAll(restriction, a)).toBe(1);
      expect(evictAll(restriction, b)).toBe(2);
    });

    it('never disrupts pods of other controller kinds or without a controller', () => {
      const custom = replicas(3, { owner: { kind: 'Rollout', name: 'r' } });
      const bare = [podWith([container('app')], { owner: null, name: 'bare' })];
      const restriction = restrictionFor([...custom, ...bare], 3);
      expect(
        [...custom, ...bare].some((pod) => restriction.canEvict(pod)),
      ).toBe(false);
    });

    it('ignores pods that are unscheduled, finished or being deleted', () => {
      const pods = replicas(3);
      const gone = [
        podWith([container('app')], { name: 'unscheduled', nodeName: '' }),
        podWith([container('app')], { name: 'done', phase: 'Succeeded' }),
        {
          ...podWith([container('app')], { name: 'deleting' }),
          metadata: {
            name: 'deleting',
            namespace: 'demo',
            deletionTimestamp: at(0),
            ownerReferences: pods[0]?.metadata?.ownerReferences ?? [],
          },
        },
      ];
      const restriction = restrictionFor([...pods, ...gone], 3);
      expect(restriction.groupOf(pods[0] as UpdaterPod)).toMatchObject({
        running: 3,
        pending: 0,
      });
      expect(gone.some((pod) => restriction.isGrouped(pod))).toBe(false);
    });
  });

  describe('single-replica opt-in', () => {
    const only = replicas(1);

    it('is off by default: one pod below min-replicas stays', () => {
      expect(evictAll(restrictionFor(only, 1), only)).toBe(0);
    });

    it('lets the one pod of a one-replica workload go, once', () => {
      const restriction = restrictionFor(only, 1, {
        options: { allowSingleReplica: true },
      });
      expect(evictAll(restriction, only)).toBe(1);
      expect(restriction.canEvict(only[0] as UpdaterPod)).toBe(false);
    });

    it('does not open a larger workload that is down to one pod', () => {
      expect(
        evictAll(
          restrictionFor(only, 3, { options: { allowSingleReplica: true } }),
          only,
        ),
      ).toBe(0);
    });
  });

  describe('whyNotEvictable', () => {
    it('names the group and its numbers when the tolerance is spent', () => {
      const pods = replicas(4);
      const restriction = restrictionFor(pods, 4);
      for (const pod of pods.slice(0, 2)) {
        expect(restriction.whyNotEvictable(pod)).toBeUndefined();
        restriction.recordEviction(pod);
      }
      expect(restriction.whyNotEvictable(pods[2] as UpdaterPod)).toBe(
        'ReplicaSet web-1 must keep 2 of 4 pods up (eviction tolerance) and has 2 up',
      );
    });

    it('says why a pod is in no group, or its group is too small', () => {
      const only = replicas(1);
      expect(
        restrictionFor(only, 1).whyNotEvictable(only[0] as UpdaterPod),
      ).toMatch(/^the pod is in no replica group the updater may disrupt/);
      expect(
        restrictionFor(only, 1, {
          vpaOptions: { mode: UpdateMode.InPlaceOrRecreate },
          options: { inPlaceSkipDisruptionBudget: true },
        }).whyNotEvictable(only[0] as UpdaterPod),
      ).toMatch(
        /has 1 live pods, fewer than minReplicas 2: it is only resized in place$/,
      );
    });
  });

  describe('in-place resizes share the budget (§5.5, §5.6)', () => {
    it('counts resizes against the tolerance together with evictions', () => {
      const pods = replicas(4);
      const restriction = restrictionFor(pods, 4);
      const [first, second, third] = pods as [
        UpdaterPod,
        UpdaterPod,
        UpdaterPod,
      ];
      expect(restriction.canResizeInPlace(first)).toBe(true);
      restriction.recordInPlace(first);
      expect(restriction.canEvict(second)).toBe(true);
      restriction.recordEviction(second);
      expect(restriction.canResizeInPlace(third)).toBe(false);
      expect(restriction.canEvict(third)).toBe(false);
    });

    it('does not resize Pending pods', () => {
      const pods = replicas(3, { phase: 'Pending' });
      expect(
        restrictionFor(pods, 3).canResizeInPlace(pods[0] as UpdaterPod),
      ).toBe(false);
    });

    it('with skip-disruption-budget, resizes a group below min-replicas but never evicts it', () => {
      const only = replicas(1);
      const restriction = restrictionFor(only, 1, {
        vpaOptions: { mode: 'InPlaceOrRecreate' },
        options: { inPlaceSkipDisruptionBudget: true },
      });
      const pod = only[0] as UpdaterPod;
      expect(restriction.canEvict(pod)).toBe(false);
      expect(restriction.canResizeInPlace(pod)).toBe(true);
      restriction.recordInPlace(pod);
      expect(restriction.canResizeInPlace(pod)).toBe(true);
    });

    it('with skip-disruption-budget, a RestartContainer resize policy keeps the budget', () => {
      const pods = replicas(2).map((pod) => ({
        ...pod,
        spec: {
          ...pod.spec,
          containers: [
            {
              ...container('app', { memory: '1Gi' }),
              resizePolicy: [
                { resourceName: 'memory', restartPolicy: 'RestartContainer' },
              ],
            },
          ],
        },
      }));
      const restriction = restrictionFor(pods, 2, {
        vpaOptions: { mode: 'InPlace' },
        options: { inPlaceSkipDisruptionBudget: true },
      });
      const [first, second] = pods as [UpdaterPod, UpdaterPod];
      restriction.recordInPlace(first);
      expect(restriction.canResizeInPlace(second)).toBe(false);
    });

    it('is ignored by Recreate: a group below min-replicas stays untouched', () => {
      const only = replicas(1);
      const restriction = restrictionFor(only, 1, {
        options: { inPlaceSkipDisruptionBudget: true },
      });
      expect(restriction.isGrouped(only[0] as UpdaterPod)).toBe(false);
    });
  });

  describe('pods with an unfinished resize (§5.6 CanEvictInPlacingPod)', () => {
    function resizing(conditionAge: number, reason: string) {
      const pods = replicas(3);
      const pod = podWith([container('app', { cpu: '1' })], {
        name: 'resizing',
        conditions: [
          resizeCondition('PodResizePending', {
            reason,
            lastTransitionTime: at(-conditionAge),
          }),
        ],
      });
      return { pod, restriction: restrictionFor([...pods, pod], 4) };
    }

    it('may be evicted once a deferred resize is older than 5m', () => {
      const fresh = resizing(5 * MINUTE, 'Deferred');
      expect(fresh.restriction.canEvict(fresh.pod)).toBe(false);
      const stale = resizing(5 * MINUTE + 1, 'Deferred');
      expect(stale.restriction.canEvict(stale.pod)).toBe(true);
    });

    it('may be evicted at once when the resize is infeasible', () => {
      const { pod, restriction } = resizing(0, 'Infeasible');
      expect(restriction.canEvict(pod)).toBe(true);
    });

    it('still needs the budget', () => {
      const { pod, restriction } = resizing(HOUR, 'Infeasible');
      const others = replicas(3);
      others.forEach((other) => {
        if (restriction.canEvict(other)) restriction.recordEviction(other);
      });
      expect(restriction.canEvict(pod)).toBe(false);
    });
  });

  it("allows exactly the tolerance (or the at-least-one rule's one) over any sequence of evictions and resizes", () => {
    const scenario = fc.record({
      configured: fc.integer({ min: 1, max: 12 }),
      running: fc.integer({ min: 0, max: 14 }),
      pending: fc.integer({ min: 0, max: 3 }),
      tolerance: fc.double({ min: 0, max: 1, noNaN: true }),
      minReplicas: fc.integer({ min: 1, max: 4 }),
      steps: fc.array(fc.record({ pod: fc.nat(), inPlace: fc.boolean() }), {
        maxLength: 40,
      }),
    });
    fc.assert(
      fc.property(scenario, (s) => {
        const running = replicas(s.running);
        const pending = replicas(s.pending, { phase: 'Pending' }).map(
          (pod, index) => ({
            ...pod,
            metadata: { ...pod.metadata, name: `pending-${index}` },
          }),
        );
        const pods = [...running, ...pending];
        const restriction = restrictionFor(pods, s.configured, {
          options: {
            evictionTolerance: s.tolerance,
            minReplicas: s.minReplicas,
          },
        });
        const disrupted = new Set<string>();
        for (const step of s.steps) {
          const pod = running[step.pod % Math.max(running.length, 1)];
          if (pod === undefined || disrupted.has(pod.metadata?.name ?? ''))
            continue;
          const allowed = step.inPlace
            ? restriction.canResizeInPlace(pod)
            : restriction.canEvict(pod);
          if (!allowed) continue;
          disrupted.add(pod.metadata?.name ?? '');
          if (step.inPlace) restriction.recordInPlace(pod);
          else restriction.recordEviction(pod);
        }
        const tolerance = Math.trunc(s.configured * s.tolerance);
        const atLeastOne =
          s.configured === s.running && tolerance === 0 ? 1 : 0;
        const budget = Math.max(
          s.running - (s.configured - tolerance),
          atLeastOne,
          0,
        );
        const live = s.running + s.pending;
        expect(disrupted.size).toBeLessThanOrEqual(
          live < s.minReplicas ? 0 : budget,
        );
      }),
    );
  });
});
