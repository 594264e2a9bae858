import type { FeatureGates, UpdateMode } from '@tandem/vpa-api';
import { decideInPlaceUpdate } from './in-place-decision.js';
import { InfeasibleResizes } from './infeasible-resizes.js';
import { UpdateRestriction } from './update-restriction.js';
import type { PodCondition, UpdaterPod } from './updater-pod.js';
import {
  at,
  container,
  entry,
  MINUTE,
  NOW,
  podWith,
  replicas,
  resizeCondition,
  vpaWith,
} from './updater.fixtures.js';

const IN_PLACE: FeatureGates = { InPlace: true };

interface Scenario {
  mode: UpdateMode;
  conditions?: PodCondition[];
  cpuTarget?: string;
  phase?: string;
  /** Replicas besides the pod; all in one ReplicaSet of `configured`. */
  others?: number;
  configured?: number;
  featureGates?: FeatureGates;
  infeasible?: InfeasibleResizes;
  now?: Date;
}

function decide(scenario: Scenario) {
  const pod = podWith([container('app', { cpu: '1' })], {
    name: 'target',
    uid: 'uid-target',
    ...(scenario.conditions && { conditions: scenario.conditions }),
    ...(scenario.phase && { phase: scenario.phase }),
  });
  const others = replicas(scenario.others ?? 2);
  const vpa = vpaWith([entry('app', { cpu: scenario.cpuTarget ?? '2' })], {
    mode: scenario.mode,
  });
  const restriction = UpdateRestriction.create({
    vpa,
    pods: [pod, ...others],
    now: scenario.now ?? NOW,
    configuredReplicas: () => scenario.configured ?? others.length + 1,
  });
  const lastInfeasible = scenario.infeasible?.lastAttempt('uid-target');
  return {
    pod,
    vpa,
    restriction,
    decision: decideInPlaceUpdate({
      pod,
      vpa,
      restriction,
      featureGates: scenario.featureGates ?? IN_PLACE,
      ...(lastInfeasible && { lastInfeasible }),
    }),
  };
}

const deferredFor = (ms: number) => [
  resizeCondition('PodResizePending', {
    reason: 'Deferred',
    lastTransitionTime: at(-ms),
  }),
];
const infeasible = [
  resizeCondition('PodResizePending', { reason: 'Infeasible' }),
];
const erroring = [
  resizeCondition('PodResizeInProgress', { reason: 'Error', message: 'x' }),
];

describe('decideInPlaceUpdate (§5.6 state machine)', () => {
  describe('by mode (§5.1)', () => {
    it.each([
      ['Off', 'skip'],
      ['Initial', 'skip'],
      ['Recreate', 'fall-back-to-eviction'],
      ['Auto', 'fall-back-to-eviction'],
      ['InPlaceOrRecreate', 'resize-in-place'],
      ['InPlace', 'resize-in-place'],
    ] as const)('%s → %s', (mode, action) => {
      expect(decide({ mode }).decision.action).toBe(action);
    });

    it('skips InPlace without its feature gate', () => {
      expect(
        decide({ mode: 'InPlace', featureGates: {} }).decision,
      ).toMatchObject({
        action: 'skip',
      });
    });
  });

  describe('before any resize', () => {
    it('waits for a Pending pod', () => {
      expect(
        decide({ mode: 'InPlaceOrRecreate', phase: 'Pending' }).decision.action,
      ).toBe('wait');
    });

    it('waits when the group cannot afford a disruption', () => {
      // 3 of 4 running, tolerance 2: 3 up > 2 that must stay up, so one may go…
      expect(
        decide({ mode: 'InPlaceOrRecreate', others: 2, configured: 4 }).decision
          .action,
      ).toBe('resize-in-place');
      // …but with 2 of 4 running, none may.
      expect(
        decide({ mode: 'InPlaceOrRecreate', others: 1, configured: 4 }).decision
          .action,
      ).toBe('wait');
    });

    it('waits for a pod outside any replica group', () => {
      expect(decide({ mode: 'InPlace', others: 0 }).decision).toMatchObject({
        action: 'wait',
        reason: 'the pod is not in a replica group the updater may disrupt',
      });
    });
  });

  describe('InPlaceOrRecreate with a resize under way', () => {
    it.each([
      ['Deferred for 4m', deferredFor(4 * MINUTE), 'wait'],
      ['Deferred for 6m', deferredFor(6 * MINUTE), 'fall-back-to-eviction'],
      ['Infeasible', infeasible, 'fall-back-to-eviction'],
      ['Error', erroring, 'fall-back-to-eviction'],
      [
        'InProgress',
        [resizeCondition('PodResizeInProgress', { lastTransitionTime: at(0) })],
        'wait',
      ],
    ])('%s → %s', (_name, conditions, action) => {
      expect(
        decide({ mode: 'InPlaceOrRecreate', conditions }).decision.action,
      ).toBe(action);
    });

    it('waits instead of evicting when the group cannot lose the pod', () => {
      expect(
        decide({
          mode: 'InPlaceOrRecreate',
          conditions: infeasible,
          others: 1,
          configured: 4,
        }).decision,
      ).toMatchObject({ action: 'wait' });
    });
  });

  describe('InPlace never evicts', () => {
    it.each([
      ['Deferred for an hour', deferredFor(60 * MINUTE)],
      ['Error', erroring],
      ['InProgress', [resizeCondition('PodResizeInProgress')]],
    ])('%s → wait', (_name, conditions) => {
      expect(decide({ mode: 'InPlace', conditions }).decision.action).toBe(
        'wait',
      );
    });

    it('walks resize → infeasible → retry once → skip → lower target → resize', () => {
      const memory = new InfeasibleResizes();
      const mode = 'InPlace';

      // Cycle 1: nothing under way, the group has room.
      expect(decide({ mode, infeasible: memory }).decision.action).toBe(
        'resize-in-place',
      );

      // Cycle 2: the kubelet says Infeasible: retry once with the current recommendation.
      const second = decide({
        mode,
        conditions: infeasible,
        infeasible: memory,
      });
      expect(second.decision).toMatchObject({
        action: 'resize-in-place',
        recordInfeasible: true,
      });
      const recommendation = second.vpa.status?.recommendation;
      if (recommendation) memory.record('uid-target', recommendation);

      // Cycle 3: same recommendation, still infeasible: skip.
      expect(
        decide({ mode, conditions: infeasible, infeasible: memory }).decision,
      ).toMatchObject({
        action: 'skip',
        recordInfeasible: false,
      });
      // A higher target does not help either.
      expect(
        decide({
          mode,
          conditions: infeasible,
          infeasible: memory,
          cpuTarget: '3',
        }).decision.action,
      ).toBe('skip');

      // Cycle 4: the target drops: try again.
      expect(
        decide({
          mode,
          conditions: infeasible,
          infeasible: memory,
          cpuTarget: '1500m',
        }).decision.action,
      ).toBe('resize-in-place');
    });

    it('InPlaceOrRecreate ignores the infeasible memory', () => {
      const memory = new InfeasibleResizes();
      memory.record('uid-target', {
        containerRecommendations: [entry('app', { cpu: '2' })],
      });
      expect(
        decide({ mode: 'InPlaceOrRecreate', infeasible: memory }).decision
          .action,
      ).toBe('resize-in-place');
    });
  });

  it('waits while the VPA has no recommendation', () => {
    const pods = replicas(3);
    const vpa = vpaWith(undefined, { mode: 'InPlaceOrRecreate' });
    const restriction = UpdateRestriction.create({
      vpa,
      pods,
      now: NOW,
      configuredReplicas: () => 3,
    });
    expect(
      decideInPlaceUpdate({ pod: pods[0] as UpdaterPod, vpa, restriction }),
    ).toEqual({
      action: 'wait',
      reason: 'the VPA has no recommendation yet',
      recordInfeasible: false,
    });
  });
});
