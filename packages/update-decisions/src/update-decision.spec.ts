import type { UpdaterContainerStatus } from './updater-pod.js';
import { decidePodUpdate, type PodUpdateInput } from './update-decision.js';
import {
  at,
  container,
  entry,
  HOUR,
  MINUTE,
  NOW,
  podWith,
  vpaWith,
  type PodOptions,
  type VpaOptions,
} from './updater.fixtures.js';
import type { RecommendedContainerResources } from '@tandem/vpa-api';

/** cpu request 1 → target `target`, bounds [lower, upper] when given. */
function decide(
  target: string,
  podOptions: PodOptions = {},
  vpaOptions: VpaOptions = {},
  extra: Partial<PodUpdateInput> = {},
  bounds: Partial<RecommendedContainerResources> = {},
) {
  const vpa = vpaWith(
    [{ ...entry('app', { cpu: target }), ...bounds }],
    vpaOptions,
  );
  return decidePodUpdate({
    pod: podWith([container('app', { cpu: '1' })], podOptions),
    vpa,
    recommendation: vpa.status?.recommendation,
    now: NOW,
    ...extra,
  });
}

function oomKilled(ranForMs: number, name = 'app'): UpdaterContainerStatus {
  return {
    name,
    lastState: {
      terminated: {
        reason: 'OOMKilled',
        startedAt: at(-HOUR),
        finishedAt: at(-HOUR + ranForMs),
      },
    },
  };
}

const IN_RANGE = { lowerBound: { cpu: '500m' }, upperBound: { cpu: '2' } };

describe('decidePodUpdate', () => {
  describe('in-range pods (§5.3 rule 3)', () => {
    it('updates a pod at least 12h old whose diff reaches 0.1', () => {
      const decision = decide(
        '1100m',
        { startTime: at(-12 * HOUR) },
        {},
        {},
        IN_RANGE,
      );
      expect(decision).toMatchObject({
        update: true,
        scaleUp: true,
        outsideRange: false,
      });
      expect(decision.diff).toBeCloseTo(0.1, 12);
    });

    it('waits for a pod younger than 12h', () => {
      const decision = decide(
        '1500m',
        { startTime: at(-12 * HOUR + 1) },
        {},
        {},
        IN_RANGE,
      );
      expect(decision.update).toBe(false);
      expect(decision.reason).toMatch(/younger than 12h/);
    });

    it('skips a diff below 0.1', () => {
      const decision = decide('1099m', {}, {}, {}, IN_RANGE);
      expect(decision.update).toBe(false);
      expect(decision.reason).toMatch(/below the update threshold 0.1/);
    });

    it('skips a pod without status.startTime', () => {
      const pod = podWith([container('app', { cpu: '1' })]);
      delete pod.status?.startTime;
      const vpa = vpaWith([{ ...entry('app', { cpu: '2' }), ...IN_RANGE }]);
      expect(
        decidePodUpdate({
          pod,
          vpa,
          recommendation: vpa.status?.recommendation,
          now: NOW,
        }),
      ).toMatchObject({
        update: false,
        reason: 'the pod has no status.startTime',
      });
    });

    it('takes the thresholds from the caller', () => {
      const decision = decide(
        '1050m',
        { startTime: at(-HOUR) },
        {},
        {
          thresholds: {
            podUpdateThreshold: 0.05,
            podLifetimeThresholdMs: HOUR,
          },
        },
        IN_RANGE,
      );
      expect(decision.update).toBe(true);
    });
  });

  it('keeps a default for a threshold left undefined', () => {
    const decision = decide(
      '1099m',
      {},
      {},
      {
        thresholds: { podUpdateThreshold: undefined },
      },
      IN_RANGE,
    );
    expect(decision.reason).toMatch(/below the update threshold 0.1/);
  });

  it('updates a young pod outside its recommended range whatever the diff (§5.3 rule 3)', () => {
    const decision = decide(
      '1001m',
      { startTime: at(-MINUTE) },
      {},
      {},
      {
        lowerBound: { cpu: '1001m' },
      },
    );
    expect(decision).toMatchObject({
      update: true,
      outsideRange: true,
      reason: 'requests are outside the recommended range',
    });
  });

  describe('quick OOM (§5.3 rules 2 and 4)', () => {
    it('a container OOM-killed within 10m of starting bypasses age and threshold', () => {
      const decision = decide(
        '1050m',
        {
          startTime: at(-MINUTE),
          containerStatuses: [oomKilled(10 * MINUTE - 1)],
        },
        {},
        {},
        IN_RANGE,
      );
      expect(decision).toMatchObject({ update: true, quickOom: true });
    });

    it('an OOM kill after a 10m run is not quick', () => {
      const decision = decide(
        '1050m',
        {
          startTime: at(-MINUTE),
          containerStatuses: [oomKilled(10 * MINUTE)],
        },
        {},
        {},
        IN_RANGE,
      );
      expect(decision).toMatchObject({ update: false, quickOom: false });
    });

    it('a quick OOM does not update a pod whose resources would not change', () => {
      const decision = decide(
        '1',
        {
          startTime: at(-MINUTE),
          containerStatuses: [oomKilled(MINUTE)],
        },
        {},
        {},
        IN_RANGE,
      );
      expect(decision).toMatchObject({
        update: false,
        quickOom: true,
        diff: 0,
      });
    });

    it('ignores containers that are not observed or in mode Off', () => {
      const options = {
        startTime: at(-MINUTE),
        annotations: { vpaObservedContainers: 'app, proxy' },
        containerStatuses: [
          oomKilled(MINUTE, 'late'),
          oomKilled(MINUTE, 'proxy'),
        ],
      };
      const decision = decide(
        '1050m',
        options,
        {
          policies: [{ containerName: 'proxy', mode: 'Off' }],
        },
        {},
        IN_RANGE,
      );
      expect(decision.quickOom).toBe(false);
    });

    it('uses evictAfterOOMSeconds only with the PerVPAConfig gate', () => {
      const options = {
        startTime: at(-MINUTE),
        containerStatuses: [oomKilled(20 * MINUTE)],
      };
      const vpaOptions = { evictAfterOOMSeconds: 3600 };
      expect(decide('1050m', options, vpaOptions, {}, IN_RANGE).quickOom).toBe(
        false,
      );
      expect(
        decide(
          '1050m',
          options,
          vpaOptions,
          {
            thresholds: { featureGates: { PerVPAConfig: true } },
          },
          IN_RANGE,
        ).quickOom,
      ).toBe(true);
    });

    it('a termination without timestamps counts as quick, as Go zero times subtract to 0', () => {
      const decision = decide(
        '2',
        {
          startTime: at(-MINUTE),
          containerStatuses: [
            { name: 'app', lastState: { terminated: { reason: 'OOMKilled' } } },
          ],
        },
        {},
        {},
        IN_RANGE,
      );
      expect(decision.quickOom).toBe(true);
    });
  });

  describe('InPlace mode infeasible memory (§5.3 rule 1)', () => {
    const lastInfeasible = {
      containerRecommendations: [entry('app', { cpu: '2' })],
    };

    it('skips while no target is lower than the infeasible one', () => {
      expect(
        decide('2', {}, { mode: 'InPlace' }, { lastInfeasible }),
      ).toMatchObject({
        update: false,
        reason:
          'the last in-place resize was infeasible and no target is lower since',
      });
    });

    it('retries once a target drops', () => {
      expect(
        decide('1500m', {}, { mode: 'InPlace' }, { lastInfeasible }).update,
      ).toBe(true);
    });

    it('is ignored by the other modes', () => {
      expect(
        decide('2', {}, { mode: 'InPlaceOrRecreate' }, { lastInfeasible })
          .update,
      ).toBe(true);
    });
  });

  it('applies evictionRequirements last (§5.3)', () => {
    const vpaOptions: VpaOptions = {
      evictionRequirements: [
        { resources: ['cpu'], changeRequirement: 'TargetLowerThanRequests' },
      ],
    };
    const pod = podWith([container('app', { cpu: '1', memory: '1Gi' })]);
    const vpa = vpaWith(
      [entry('app', { cpu: '2', memory: '1Gi' })],
      vpaOptions,
    );
    expect(
      decidePodUpdate({
        pod,
        vpa,
        recommendation: vpa.status?.recommendation,
        now: NOW,
      }),
    ).toMatchObject({
      update: false,
      reason: 'the VPA evictionRequirements are not met',
    });
  });

  it('never updates for a VPA without a recommendation', () => {
    const vpa = vpaWith(undefined);
    expect(
      decidePodUpdate({
        pod: podWith([container('app', { cpu: '1' })]),
        vpa,
        recommendation: undefined,
        now: NOW,
      }),
    ).toMatchObject({ update: false, diff: 0 });
  });
});
