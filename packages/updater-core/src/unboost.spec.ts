import fc from 'fast-check';
import type { UpdaterPod } from '@tandem/update-decisions';
import {
  parseQuantity,
  UpdateMode,
  type StartupBoost,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { expiredBoosts, unboostPlan } from './unboost-plan.js';
import {
  fakeUpdater,
  podOf,
  vpaOf,
  type VpaOptions,
} from './updater.fixtures.js';

const now = () => new Date();
const SECOND = 1000;
const BOOST_KEY = 'vpaCpuStartupBoost/app';
const ORIGINAL = '{"requests":{"cpu":"100m","memory":"1Gi"},"limits":{}}';
const RESIZED = 'vpa_updater_in_place_updated_pods_total';
const FAILED = 'vpa_updater_failed_in_place_update_attempts_total';
const GATE = { featureGates: { CPUStartupBoost: true } };

/** Pod `name` of ReplicaSet web-1 boosted to 1 CPU, Ready since `readyAgoMs`. */
function boostedPod(
  name: string,
  at: Date,
  readyAgoMs: number | undefined,
  annotation = ORIGINAL,
): UpdaterPod {
  const pod = podOf(name, at, {
    requests: { cpu: '1', memory: '1Gi' },
    ...(readyAgoMs !== undefined && {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastTransitionTime: new Date(at.getTime() - readyAgoMs).toISOString(),
        },
      ],
    }),
  });
  pod.metadata = { ...pod.metadata, annotations: { [BOOST_KEY]: annotation } };
  return pod;
}

function boostingVpa(
  boost: StartupBoost,
  options: VpaOptions = {},
): VerticalPodAutoscaler {
  const vpa = vpaOf('web', options);
  vpa.spec.startupBoost = boost;
  return vpa;
}

const forSeconds = (durationSeconds: number): StartupBoost => ({
  cpu: { type: 'Factor', factor: 10, durationSeconds },
});

describe('expiredBoosts', () => {
  const at = new Date('2026-01-01T12:00:00Z');
  const vpa = boostingVpa(forSeconds(60));

  it('waits for Ready, then for the duration', () => {
    expect(expiredBoosts(boostedPod('p', at, undefined), vpa, at)).toEqual([]);
    expect(expiredBoosts(boostedPod('p', at, 30 * SECOND), vpa, at)).toEqual(
      [],
    );
    expect(expiredBoosts(boostedPod('p', at, 61 * SECOND), vpa, at)).toEqual([
      'app',
    ]);
  });

  it('a duration of 0 ends the boost as soon as the pod is Ready', () => {
    const instant = boostingVpa(forSeconds(0));
    expect(expiredBoosts(boostedPod('p', at, 0), instant, at)).toEqual(['app']);
  });
});

describe('unboostPlan', () => {
  const at = new Date('2026-01-01T12:00:00Z');

  it('goes back to the recommendation, removing the annotation', () => {
    const plan = unboostPlan(
      boostedPod('p', at, HOUR_MS),
      boostingVpa(forSeconds(0)),
      [],
      at,
    );
    expect(plan).toEqual({
      containers: ['app'],
      resize: [
        {
          op: 'add',
          path: '/spec/containers/0/resources/requests/cpu',
          value: '1',
        },
        {
          op: 'add',
          path: '/spec/containers/0/resources/requests/memory',
          value: '1Gi',
        },
      ],
      annotations: [
        { op: 'remove', path: '/metadata/annotations/vpaCpuStartupBoost~1app' },
        {
          op: 'add',
          path: '/metadata/annotations/vpaInPlaceUpdated',
          value: 'true',
        },
      ],
    });
  });

  it('goes back to the recorded values in mode Off or without a recommendation', () => {
    for (const options of [
      { mode: UpdateMode.Off },
      { recommendation: null },
    ] as VpaOptions[]) {
      const plan = unboostPlan(
        boostedPod('p', at, HOUR_MS),
        boostingVpa(forSeconds(0), options),
        [],
        at,
      );
      expect(plan).toMatchObject({
        resize: [
          {
            op: 'add',
            path: '/spec/containers/0/resources/requests/cpu',
            value: '100m',
          },
          {
            op: 'add',
            path: '/spec/containers/0/resources/requests/memory',
            value: '1Gi',
          },
        ],
      });
    }
  });

  it('restores the recorded CPU when the recommendation has none', () => {
    const plan = unboostPlan(
      boostedPod('p', at, HOUR_MS),
      boostingVpa(forSeconds(0), {
        recommendation: [{ containerName: 'app', target: { memory: '2Gi' } }],
      }),
      [],
      at,
    );
    expect(plan).toMatchObject({
      resize: [
        {
          op: 'add',
          path: '/spec/containers/0/resources/requests/memory',
          value: '2Gi',
        },
        {
          op: 'add',
          path: '/spec/containers/0/resources/requests/cpu',
          value: '100m',
        },
      ],
    });
  });

  it('says why a broken annotation cannot be used, and resizes nothing', () => {
    const plan = unboostPlan(
      boostedPod('p', at, HOUR_MS, '{"requests":{"cpu":"fast"}'),
      boostingVpa(forSeconds(0), { mode: UpdateMode.Off }),
      [],
      at,
    );
    expect(plan).toEqual({
      containers: ['app'],
      problem: expect.stringContaining(
        'the annotation vpaCpuStartupBoost/app is unusable (not JSON',
      ) as string,
    });
  });

  it('property: any annotation text yields a plan of valid quantities or a problem, never a throw', () => {
    const annotation = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .record({
          requests: fc.dictionary(
            fc.constantFrom('cpu', 'memory'),
            fc.oneof(fc.string(), fc.integer(), fc.constant('250m')),
          ),
          limits: fc.anything(),
        })
        .map((value) => JSON.stringify(value)),
    );
    fc.assert(
      fc.property(annotation, (text) => {
        const plan = unboostPlan(
          boostedPod('p', at, HOUR_MS, text),
          boostingVpa(forSeconds(0), { mode: UpdateMode.Off }),
          [],
          at,
        );
        expect(plan).toBeDefined();
        if (plan === undefined || 'problem' in plan) return;
        for (const operation of plan.resize) {
          if (typeof operation.value !== 'string') continue;
          expect(parseQuantity(operation.value).sign()).toBeGreaterThanOrEqual(
            0,
          );
        }
      }),
    );
  });
});

const HOUR_MS = 3_600_000;

describe('runUpdaterCycle: CPU startup boost', () => {
  it('unboosts the only pod of an Off VPA in place, back to the recorded values, then removes the annotation', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [boostingVpa(forSeconds(60), { mode: UpdateMode.Off })],
      pods: [boostedPod('web-1-0', at, 2 * 60 * SECOND)],
      settings: GATE,
    });
    const summary = await updater.run(at);
    expect(summary).toMatchObject({ resized: 1, evicted: 0, errors: 0 });
    expect(updater.actions.calls.map(({ action }) => action)).toEqual([
      'resize',
      'annotate',
    ]);
    expect(updater.actions.calls[0]?.patch).toEqual([
      {
        op: 'add',
        path: '/spec/containers/0/resources/requests/cpu',
        value: '100m',
      },
      {
        op: 'add',
        path: '/spec/containers/0/resources/requests/memory',
        value: '1Gi',
      },
    ]);
    expect(updater.actions.calls[1]?.patch).toContainEqual({
      op: 'remove',
      path: '/metadata/annotations/vpaCpuStartupBoost~1app',
    });
    expect(updater.events.map(({ reason }) => reason)).toEqual([
      'InPlaceResizedByVPA',
      'InPlaceResizedPod',
    ]);
    expect(updater.events[0]?.message).toBe(
      'Pod was resized in place by VPA Updater: the CPU startup boost of app ended.',
    );
    expect(
      await updater.metric(RESIZED, { vpa_name: 'web', vpa_namespace: 'demo' }),
    ).toBe(1);
  });

  it('leaves a boost that is not over, and the boosted pod out of other updates', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [boostingVpa(forSeconds(600), { mode: UpdateMode.Recreate })],
      pods: [
        boostedPod('web-1-0', at, 60 * SECOND),
        boostedPod('web-1-1', at, undefined),
      ],
      settings: GATE,
    });
    const summary = await updater.run(at);
    expect(summary).toMatchObject({ resized: 0, evicted: 0 });
    expect(updater.actions.calls).toEqual([]);
  });

  it('a broken annotation is an UnboostError with a Warning, never a crash nor an eviction', async () => {
    const at = now();
    const updater = fakeUpdater({
      // Mode Off: the recorded values are what the unboost needs.
      vpas: [boostingVpa(forSeconds(0), { mode: UpdateMode.Off })],
      pods: [
        boostedPod('web-1-0', at, HOUR_MS, 'not json'),
        boostedPod('web-1-1', at, HOUR_MS),
      ],
      settings: GATE,
    });
    const summary = await updater.run(at);
    expect(summary).toMatchObject({ evicted: 0, resized: 1 });
    expect(updater.actions.podsOf('resize')).toEqual(['web-1-1']);
    expect(updater.actions.podsOf('evict')).toEqual([]);
    const warning = updater.events.find(
      ({ reason }) => reason === 'UnboostFailed',
    );
    expect(warning).toMatchObject({ type: 'Warning', name: 'web-1-0' });
    expect(warning?.message).toContain(
      'The CPU startup boost of app was not ended: the annotation vpaCpuStartupBoost/app is unusable',
    );
    expect(
      await updater.metric(FAILED, {
        reason: 'UnboostError',
        vpa_name: 'web',
      }),
    ).toBe(1);
  });

  it('a refused unboost resize is an UnboostError, and the pod is not evicted', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [
        boostingVpa(forSeconds(0), { mode: UpdateMode.InPlaceOrRecreate }),
      ],
      pods: [boostedPod('web-1-0', at, HOUR_MS)],
      settings: GATE,
    });
    updater.actions.defaultResize = { outcome: 'failed', message: 'nope' };
    const summary = await updater.run(at);
    expect(summary).toMatchObject({ evicted: 0, resized: 0 });
    expect(updater.actions.podsOf('evict')).toEqual([]);
    expect(await updater.metric(FAILED, { reason: 'UnboostError' })).toBe(1);
  });

  it('does nothing for an Off VPA with a boost while the gate is off', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [boostingVpa(forSeconds(0), { mode: UpdateMode.Off })],
      pods: [boostedPod('web-1-0', at, HOUR_MS)],
    });
    expect(await updater.run(at)).toMatchObject({ vpas: 0, resized: 0 });
    expect(updater.actions.calls).toEqual([]);
  });

  it('keeps a group below minReplicas for its unboost only: its other pod is not evicted', async () => {
    const at = now();
    const plain = podOf('web-1-1', at, {
      requests: { cpu: '100m', memory: '1Gi' },
    });
    const updater = fakeUpdater({
      vpas: [
        boostingVpa(forSeconds(0), {
          mode: UpdateMode.Recreate,
          minReplicas: 3,
        }),
      ],
      pods: [boostedPod('web-1-0', at, HOUR_MS), plain],
      settings: GATE,
    });
    const summary = await updater.run(at);
    expect(summary).toMatchObject({ resized: 1, evicted: 0 });
    expect(updater.actions.podsOf('resize')).toEqual(['web-1-0']);
  });
});
