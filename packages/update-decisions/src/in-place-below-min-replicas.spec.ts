import fc from 'fast-check';
import { UpdateMode } from '@tandem/vpa-api';
import { IN_PLACE_BELOW_MIN_REPLICAS_ANNOTATION } from './in-place-below-min-replicas.js';
import { decideInPlaceUpdate } from './in-place-decision.js';
import { UpdateRestriction } from './update-restriction.js';
import {
  entry,
  NOW,
  replicas,
  resizeCondition,
  vpaWith,
} from './updater.fixtures.js';
import type { UpdaterPod } from './updater-pod.js';

const OPTED_IN = { [IN_PLACE_BELOW_MIN_REPLICAS_ANNOTATION]: 'true' };

interface Scenario {
  mode?: UpdateMode;
  annotations?: Record<string, string>;
  /** `--in-place-below-min-replicas`. */
  flag?: boolean;
  allowSingleReplica?: boolean;
  minReplicas?: number;
}

function restriction(
  pods: UpdaterPod[],
  {
    mode = UpdateMode.InPlaceOrRecreate,
    annotations = OPTED_IN,
    flag = true,
    allowSingleReplica = false,
    minReplicas = 2,
  }: Scenario = {},
) {
  const vpa = vpaWith([entry('app', { cpu: '2' })], { mode, annotations });
  return {
    vpa,
    restriction: UpdateRestriction.create({
      vpa,
      pods,
      now: NOW,
      configuredReplicas: () => pods.length,
      options: {
        minReplicas,
        inPlaceBelowMinReplicas: flag,
        allowSingleReplica,
      },
    }),
  };
}

describe('in place below minReplicas (kubernetes/autoscaler#9157, opt-in)', () => {
  const [only] = replicas(1) as [UpdaterPod];

  it('resizes the only pod of an opted-in InPlaceOrRecreate VPA in place, and never evicts it', () => {
    const { vpa, restriction: opened } = restriction([only]);
    expect(opened.isGrouped(only)).toBe(true);
    expect(opened.canResizeInPlace(only)).toBe(true);
    expect(opened.canEvict(only)).toBe(false);
    expect(opened.whyNotEvictable(only)).toBe(
      'ReplicaSet web-1 has 1 live pods, fewer than minReplicas 2: it is only resized in place',
    );
    expect(
      decideInPlaceUpdate({ pod: only, vpa, restriction: opened }),
    ).toEqual({
      action: 'resize-in-place',
      reason: 'the replica group can afford a resize',
      recordInfeasible: false,
    });
  });

  it('waits instead of falling back to eviction when the resize is infeasible', () => {
    const [stuck] = replicas(1, {
      conditions: [
        resizeCondition('PodResizePending', { reason: 'Infeasible' }),
      ],
    }) as [UpdaterPod];
    const { vpa, restriction: opened } = restriction([stuck]);
    expect(
      decideInPlaceUpdate({ pod: stuck, vpa, restriction: opened }),
    ).toMatchObject({
      action: 'wait',
      reason:
        'the node cannot accommodate the resize (Infeasible), but it is not evicted: ReplicaSet web-1 has 1 live pods, fewer than minReplicas 2: it is only resized in place',
    });
  });

  it.each<[string, Scenario]>([
    ['without the updater flag', { flag: false }],
    ['without the VPA annotation', { annotations: {} }],
    [
      'with the annotation not "true"',
      { annotations: { [IN_PLACE_BELOW_MIN_REPLICAS_ANNOTATION]: 'yes' } },
    ],
    [
      'in mode Recreate (its updates are evictions)',
      { mode: UpdateMode.Recreate },
    ],
  ])('leaves the group alone %s', (_, options) => {
    expect(restriction([only], options).restriction.isGrouped(only)).toBe(
      false,
    );
  });

  it('wins over --allow-single-replica: the VPA asked for no disruption', () => {
    const { restriction: opened } = restriction([only], {
      allowSingleReplica: true,
    });
    expect(opened.canEvict(only)).toBe(false);
    expect(opened.canResizeInPlace(only)).toBe(true);
  });

  it('never lets an opted-in group below minReplicas lose a running pod, and resizes within the tolerance', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(UpdateMode.InPlaceOrRecreate, UpdateMode.InPlace),
        (live, extra, mode) => {
          const pods = replicas(live);
          const { restriction: opened } = restriction(pods, {
            mode,
            minReplicas: live + extra,
          });
          let resized = 0;
          for (const pod of pods) {
            if (opened.canEvict(pod)) return false;
            if (opened.canResizeInPlace(pod)) {
              opened.recordInPlace(pod);
              resized += 1;
            }
          }
          return resized === Math.max(Math.trunc(live * 0.5), 1);
        },
      ),
    );
  });
});
