import fc from 'fast-check';
import { TokenBucket } from '@tandem/kube';
import { UpdateMode } from '@tandem/vpa-api';
import { dryRunActions } from './pod-actions.js';
import {
  fakeUpdater,
  podOf,
  replicaSetPods,
  resizeCondition,
  vpaOf,
  type FakeUpdaterOptions,
} from './updater.fixtures.js';

// Real time: the cycle's deadline is `now` + interval, compared with the clock by the rate
// limiters, as in production.
const now = () => new Date();

const EVICTED = 'vpa_updater_evicted_pods_total';
const FAILED_EVICTIONS = 'vpa_updater_failed_eviction_attempts_total';
const BLOCKED = 'tandem_updater_evictions_blocked_total';
const RESIZED = 'vpa_updater_in_place_updated_pods_total';
const FAILED_RESIZES = 'vpa_updater_failed_in_place_update_attempts_total';
const RECOVERED = 'tandem_updater_recovered_errors_total';
const WEB = { vpa_name: 'web', vpa_namespace: 'demo' };

/**
 * Four replicas of `web`, all outside the recommended CPU range (500m–2). Priority order:
 * web-1-3 (50m, scale up, diff 19), web-1-1 (100m, diff 9), web-1-0 (200m, diff 4), then
 * web-1-2 (4 CPU, scale down).
 */
const FOUR = ['200m', '100m', '4', '50m'];

/** The resize of container `app` to the default target's requests (1 CPU, 1Gi). */
const REQUESTS_TO_TARGET = [
  { op: 'add', path: '/spec/containers/0/resources/requests/cpu', value: '1' },
  {
    op: 'add',
    path: '/spec/containers/0/resources/requests/memory',
    value: '1Gi',
  },
];

/**
 * VPA `web` over an OpenKruise CloneSet `web`, which creates its four pods (`FOUR`) itself;
 * the CloneSet is their top-most controller.
 */
function cloneSetUpdater(at: Date, options: FakeUpdaterOptions = {}) {
  const cloneSet = {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    name: 'web',
  };
  const vpa = vpaOf('web');
  vpa.spec.targetRef = cloneSet;
  return fakeUpdater({
    vpas: [vpa],
    pods: FOUR.map((cpu, index) =>
      podOf(`web-${index}`, at, {
        owner: { kind: 'CloneSet', name: 'web' },
        requests: { cpu, memory: '1Gi' },
      }),
    ),
    controllers: { 'CloneSet/web': cloneSet },
    ...options,
  });
}

describe('runUpdaterCycle: evictions', () => {
  it('evicts half of a 4-replica ReplicaSet, highest priority first, with events and metrics', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: replicaSetPods(FOUR, at),
    });

    const summary = await updater.run(at);

    expect(summary).toEqual({
      vpas: 1,
      pods: 4,
      evicted: 2,
      resized: 0,
      errors: 0,
    });
    expect(updater.actions.podsOf('evict')).toEqual(['web-1-3', 'web-1-1']);
    expect(updater.actions.podsOf('resize')).toEqual([]);
    expect(
      updater.events.map(({ kind, name, type, reason }) => ({
        kind,
        name,
        type,
        reason,
      })),
    ).toEqual([
      { kind: 'Pod', name: 'web-1-3', type: 'Normal', reason: 'EvictedByVPA' },
      {
        kind: 'VerticalPodAutoscaler',
        name: 'web',
        type: 'Normal',
        reason: 'EvictedPod',
      },
      { kind: 'Pod', name: 'web-1-1', type: 'Normal', reason: 'EvictedByVPA' },
      {
        kind: 'VerticalPodAutoscaler',
        name: 'web',
        type: 'Normal',
        reason: 'EvictedPod',
      },
      { kind: 'Pod', name: 'web-1-0', type: 'Normal', reason: 'UpdateWaiting' },
      { kind: 'Pod', name: 'web-1-2', type: 'Normal', reason: 'UpdateWaiting' },
    ]);
    const [podEvent, vpaEvent] = updater.events;
    expect(podEvent?.message).toBe(
      'Pod was evicted by VPA Updater to apply resource recommendation: requests are outside the recommended range (app: cpu 50m -> 1).',
    );
    expect(updater.events[5]?.message).toBe(
      'Not updated to the recommendation of VPA demo/web (app: cpu 4 -> 1): not evicted: ReplicaSet web-1 must keep 2 of 4 pods up (eviction tolerance) and has 2 up.',
    );
    expect(podEvent?.subject).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      namespace: 'demo',
      name: 'web-1-3',
      uid: 'uid-web-1-3',
    });
    expect(podEvent?.message).toContain(
      'requests are outside the recommended range',
    );
    expect(vpaEvent?.subject).toMatchObject({
      apiVersion: 'autoscaling.k8s.io/v1',
      uid: 'uid-vpa-web',
    });
    expect(vpaEvent?.message).toContain('VPA Updater evicted Pod web-1-3');

    const bySize = { vpa_size_log2: '2', update_mode: 'Recreate' };
    expect(await updater.metric(EVICTED, { ...bySize, ...WEB })).toBe(2);
    expect(
      await updater.metric('vpa_updater_controlled_pods_total', bySize),
    ).toBe(4);
    expect(
      await updater.metric('vpa_updater_evictable_pods_total', bySize),
    ).toBe(4);
    expect(
      await updater.metric(
        'vpa_updater_vpas_with_evictable_pods_total',
        bySize,
      ),
    ).toBe(1);
    expect(
      await updater.metric('vpa_updater_vpas_with_evicted_pods_total', bySize),
    ).toBe(1);
    expect(await updater.metric(FAILED_EVICTIONS)).toBe(0);
  });

  it('resets the per-cycle gauges each cycle while the counters add up', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: replicaSetPods(FOUR, at),
    });
    await updater.run(at);
    await updater.run(now());

    expect(await updater.metric('vpa_updater_controlled_pods_total')).toBe(4);
    expect(await updater.metric(EVICTED)).toBe(4);

    updater.pods.splice(0);
    await updater.run(now());
    expect(await updater.metric('vpa_updater_controlled_pods_total')).toBe(0);
    expect(await updater.metric('vpa_updater_evictable_pods_total')).toBe(0);
  });

  it('leaves pods within the recommended range of a young pod alone, and ignores pods not live', async () => {
    const at = now();
    const young = new Date(at.getTime() - 60_000).toISOString();
    const updater = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: [
        podOf('web-1-0', at, { requests: { cpu: '1', memory: '1Gi' } }),
        podOf('web-1-1', at, {
          requests: { cpu: '1500m', memory: '1Gi' },
          startTime: young,
        }),
        podOf('web-1-2', at, { nodeName: '' }),
        podOf('web-1-3', at, { phase: 'Succeeded' }),
        podOf('web-1-4', at, { deletionTimestamp: at.toISOString() }),
      ],
    });

    const summary = await updater.run(at);

    expect(summary).toMatchObject({ vpas: 1, pods: 2, evicted: 0 });
    expect(updater.actions.calls).toEqual([]);
    // A pod the recommendation leaves as it is gets no event, cycle after cycle.
    expect(updater.events).toEqual([]);
  });

  it('does not count a PodDisruptionBudget refusal as a failure, nor against the group budget', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: replicaSetPods(FOUR, at),
    });
    updater.actions.evictAnswers.set('web-1-3', {
      outcome: 'blocked-by-budget',
      message:
        "Cannot evict pod as it would violate the pod's disruption budget.",
    });

    const summary = await updater.run(at);

    expect(updater.actions.podsOf('evict')).toEqual([
      'web-1-3',
      'web-1-1',
      'web-1-0',
    ]);
    expect(summary).toMatchObject({ evicted: 2, errors: 0 });
    expect(
      updater.events
        .filter((event) => event.name === 'web-1-3')
        .map(({ type, reason, message }) => ({ type, reason, message })),
    ).toEqual([
      {
        type: 'Normal',
        reason: 'EvictionBlockedByBudget',
        message:
          "Not updated to the recommendation of VPA demo/web (app: cpu 50m -> 1): a PodDisruptionBudget refused the eviction (Cannot evict pod as it would violate the pod's disruption budget.); retried next cycle.",
      },
    ]);
    expect(await updater.metric(FAILED_EVICTIONS)).toBe(0);
    expect(await updater.metric(BLOCKED, WEB)).toBe(1);
    expect(await updater.metric(EVICTED, WEB)).toBe(2);
  });

  it('counts an eviction error as a failed attempt (EvictionError) and goes on', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: replicaSetPods(FOUR, at),
    });
    updater.actions.evictAnswers.set('web-1-3', {
      outcome: 'failed',
      message: 'Internal error',
    });

    const summary = await updater.run(at);

    expect(
      await updater.metric(FAILED_EVICTIONS, { reason: 'EvictionError' }),
    ).toBe(1);
    expect(await updater.metric(BLOCKED)).toBe(0);
    expect(summary.evicted).toBe(2);
    expect(updater.actions.podsOf('evict')).toEqual([
      'web-1-3',
      'web-1-1',
      'web-1-0',
    ]);
    expect(updater.events[0]).toMatchObject({
      name: 'web-1-3',
      type: 'Warning',
      reason: 'EvictionFailed',
      message:
        'Not updated to the recommendation of VPA demo/web (app: cpu 50m -> 1): the eviction failed: Internal error.',
    });
  });

  it('counts a pod gone before its eviction as a recovered error', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: replicaSetPods(['100m', '200m'], at),
    });
    updater.actions.evictAnswers.set('web-1-0', 'gone');

    const summary = await updater.run(at);

    expect(summary).toMatchObject({ evicted: 1, errors: 1 });
    expect(updater.recovered.map((entry) => entry.kind)).toEqual(['pod-gone']);
    expect(await updater.metric(RECOVERED, { kind: 'pod-gone' })).toBe(1);
  });

  it('evicts exactly max(⌊replicas × tolerance⌋, 1) pods of a group, in priority order', async () => {
    const cpuMillis = fc.oneof(
      fc.integer({ min: 10, max: 499 }),
      fc.integer({ min: 2001, max: 8000 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(cpuMillis, { minLength: 1, maxLength: 10 }),
        fc.constantFrom(0, 0.1, 0.25, 0.5, 0.75, 1),
        async (millis, evictionTolerance) => {
          const at = now();
          const updater = fakeUpdater({
            vpas: [vpaOf('web')],
            pods: replicaSetPods(
              millis.map((m) => `${m}m`),
              at,
            ),
            settings: { restriction: { evictionTolerance } },
          });

          await updater.run(at);

          const n = millis.length;
          const expectedCount =
            n < 2 ? 0 : Math.max(Math.trunc(n * evictionTolerance), 1);
          const priority = (m: number) => ({
            scaleUp: m < 1000,
            diff: Math.abs(m - 1000) / m,
          });
          const expectedOrder = millis
            .map((m, index) => ({ name: `web-1-${index}`, ...priority(m) }))
            .sort((a, b) =>
              a.scaleUp !== b.scaleUp
                ? Number(b.scaleUp) - Number(a.scaleUp)
                : b.diff - a.diff,
            )
            .map((pod) => pod.name);
          expect(updater.actions.podsOf('evict')).toEqual(
            expectedOrder.slice(0, expectedCount),
          );
        },
      ),
      { numRuns: 60 },
    );
  });
  it('budgets the pods of a scalable custom owner by its scale’s replicas, as a ReplicaSet’s', async () => {
    const at = now();
    const updater = cloneSetUpdater(at, {
      replicas: { 'demo/apps.kruise.io/v1alpha1/CloneSet/web': 4 },
    });

    expect((await updater.run(at)).evicted).toBe(2);
    expect(updater.actions.podsOf('evict')).toEqual(['web-3', 'web-1']);
    expect(
      updater.events.find((event) => event.name === 'web-2')?.message,
    ).toContain('CloneSet web must keep 2 of 4 pods up');
  });

  it('leaves a scalable owner’s group alone when its replicas cannot be read, as a recovered error', async () => {
    const at = now();
    const updater = cloneSetUpdater(at);
    updater.context.configuredReplicas = () =>
      Promise.reject(new Error('scale forbidden'));

    expect((await updater.run(at)).evicted).toBe(0);
    expect(updater.recovered).toEqual([
      {
        kind: 'replica-count',
        message:
          'replica group left alone, its configured replicas cannot be read: scale forbidden',
        fields: { owner: 'demo/apps.kruise.io/v1alpha1/CloneSet/web' },
      },
    ]);
  });
});

describe('runUpdaterCycle: in-place updates', () => {
  it('resizes an InPlaceOrRecreate pod through the resize subresource, annotates it and tells', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate })],
      pods: replicaSetPods(['100m', '200m'], at),
    });

    const summary = await updater.run(at);

    expect(summary).toEqual({
      vpas: 1,
      pods: 2,
      evicted: 0,
      resized: 1,
      errors: 0,
    });
    expect(updater.actions.calls).toEqual([
      {
        action: 'resize',
        pod: 'demo/web-1-0',
        patch: REQUESTS_TO_TARGET,
      },
      {
        action: 'annotate',
        pod: 'demo/web-1-0',
        patch: [
          { op: 'add', path: '/metadata/annotations', value: {} },
          {
            op: 'add',
            path: '/metadata/annotations/vpaInPlaceUpdated',
            value: 'true',
          },
        ],
      },
    ]);
    expect(
      updater.events.map(({ kind, name, reason }) => [kind, name, reason]),
    ).toEqual([
      ['Pod', 'web-1-0', 'InPlaceResizedByVPA'],
      ['VerticalPodAutoscaler', 'web', 'InPlaceResizedPod'],
      ['Pod', 'web-1-1', 'UpdateWaiting'],
    ]);
    expect(updater.events[0]?.message).toBe(
      'Pod was resized in place by VPA Updater: requests are outside the recommended range (app: cpu 100m -> 1).',
    );
    expect(updater.events[2]?.message).toBe(
      'Not updated to the recommendation of VPA demo/web (app: cpu 200m -> 1): the replica group cannot afford another disruption now.',
    );
    expect(await updater.metric(RESIZED, { vpa_size_log2: '1', ...WEB })).toBe(
      1,
    );
    expect(await updater.metric(EVICTED)).toBe(0);
    expect(
      await updater.metric('vpa_updater_in_place_updatable_pods_total', {
        vpa_size_log2: '1',
      }),
    ).toBe(1);
    expect(
      await updater.metric('vpa_updater_vpas_with_in_place_updated_pods_total'),
    ).toBe(1);
    expect(
      await updater.metric('vpa_updater_controlled_pods_total', {
        update_mode: 'InPlaceOrRecreate',
      }),
    ).toBe(2);
  });

  it('resizes the only pod of an opted-in VPA in place and never evicts it, even when the resize is refused', async () => {
    const at = now();
    const vpa = vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate });
    vpa.metadata = {
      ...vpa.metadata,
      annotations: { 'tandem.dev/in-place-below-min-replicas': 'true' },
    };
    const single = () =>
      fakeUpdater({
        vpas: [vpa],
        pods: replicaSetPods(['100m'], at),
        settings: { restriction: { inPlaceBelowMinReplicas: true } },
      });

    const resized = single();
    expect(await resized.run(at)).toMatchObject({ evicted: 0, resized: 1 });

    const refused = single();
    refused.actions.defaultResize = { outcome: 'failed', message: 'refused' };
    expect(await refused.run(at)).toMatchObject({ evicted: 0, resized: 0 });
    expect(refused.actions.podsOf('evict')).toEqual([]);
    expect(refused.events.map((event) => event.message)).toContainEqual(
      expect.stringContaining(
        'not evicted: ReplicaSet web-1 has 1 live pods, fewer than minReplicas 2: it is only resized in place',
      ),
    );
  });

  it('keeps a memory limit out of a resize that would shrink it under the working set, applies the rest and says why', async () => {
    const at = now();
    const pods = replicaSetPods(['100m', '200m'], at).map((pod) => {
      const [app] = pod.spec.containers;
      if (app !== undefined)
        app.resources = {
          requests: {
            cpu: app.resources?.requests?.['cpu'] ?? '',
            memory: '2Gi',
          },
          limits: { memory: '2Gi' },
        };
      return pod;
    });
    const updater = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate })],
      pods,
      workingSets: { 'web-1-0': { app: 1000 * 1024 * 1024 } },
    });

    expect(await updater.run(at)).toMatchObject({ resized: 1, errors: 0 });
    expect(updater.actions.calls[0]?.patch).toEqual(REQUESTS_TO_TARGET);
    const kept = updater.events.filter(
      (event) => event.reason === 'InPlaceMemoryLimitKept',
    );
    expect(kept.map((event) => event.message)).toEqual([
      'Not updated to the recommendation of VPA demo/web (app: cpu 100m -> 1, memory 2Gi -> 1Gi): memory limit of container app kept at 2Gi instead of 1Gi: below its working set 1000Mi plus headroom (at least 1150Mi); the rest of the resize is applied.',
    ]);
    expect(
      await updater.metric('tandem_updater_in_place_memory_limits_kept_total', {
        reason: 'below-working-set',
      }),
    ).toBe(1);
    expect(updater.metricsReads).toEqual(['demo']);
  });

  it('reads no metrics for a resize that raises a memory limit', async () => {
    const at = now();
    const pods = replicaSetPods(['100m'], at).map((pod) => {
      const [app] = pod.spec.containers;
      if (app !== undefined)
        app.resources = {
          requests: { cpu: '100m', memory: '512Mi' },
          limits: { memory: '512Mi' },
        };
      return pod;
    });
    const updater = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate })],
      pods,
      settings: { restriction: { allowSingleReplica: true } },
    });

    expect(await updater.run(at)).toMatchObject({ resized: 1 });
    expect(updater.actions.calls[0]?.patch).toContainEqual({
      op: 'add',
      path: '/spec/containers/0/resources/limits/memory',
      value: '1Gi',
    });
    expect(updater.metricsReads).toEqual([]);
  });

  it('shrinks no memory limit when the metrics cannot be read, as a recovered error once a namespace', async () => {
    const at = now();
    const pods = replicaSetPods(['100m', '200m'], at).map((pod) => {
      const [app] = pod.spec.containers;
      if (app !== undefined) app.resources = { limits: { memory: '2Gi' } };
      return pod;
    });
    const updater = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate })],
      pods,
      settings: { restriction: { evictionTolerance: 1 } },
      workingSets: new Error('metrics.k8s.io is down'),
    });

    expect(await updater.run(at)).toMatchObject({ resized: 2 });
    expect(
      updater.actions.calls
        .filter((call) => call.action === 'resize')
        .flatMap((call) => call.patch ?? [])
        .filter((operation) => operation.path.includes('/limits/memory')),
    ).toEqual([]);
    expect(updater.recovered.map(({ kind }) => kind)).toEqual(['pod-metrics']);
    expect(
      await updater.metric('tandem_updater_in_place_memory_limits_kept_total', {
        reason: 'working-set-unknown',
      }),
    ).toBe(2);
  });

  it('keeps a resize when the annotation patch fails, as a recovered error', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate })],
      pods: replicaSetPods(['100m', '200m'], at),
    });
    updater.actions.annotateError = new Error('conflict');

    const summary = await updater.run(at);

    expect(summary).toMatchObject({ resized: 1, errors: 1 });
    expect(updater.recovered.map((entry) => entry.kind)).toEqual(['annotate']);
    expect(updater.events.map((event) => event.reason)).toContain(
      'InPlaceResizedByVPA',
    );
  });

  it.each([
    ['failed', 'InPlaceUpdateError'],
    ['infeasible', 'InPlaceUpdateInfeasible'],
  ] as const)(
    'falls back to eviction when the resize answers %s, within the group budget',
    async (outcome, reason) => {
      const at = now();
      const updater = fakeUpdater({
        vpas: [vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate })],
        pods: replicaSetPods(['100m', '200m'], at),
      });
      updater.actions.defaultResize = outcome;

      const summary = await updater.run(at);

      expect(updater.actions.podsOf('resize')).toEqual(['web-1-0', 'web-1-1']);
      // Two replicas may lose one pod at a time.
      expect(updater.actions.podsOf('evict')).toEqual(['web-1-0']);
      expect(updater.actions.podsOf('annotate')).toEqual([]);
      expect(summary).toMatchObject({ evicted: 1, resized: 0 });
      expect(await updater.metric(FAILED_RESIZES, { reason, ...WEB })).toBe(2);
      expect(
        await updater.metric(EVICTED, {
          update_mode: 'InPlaceOrRecreate',
          ...WEB,
        }),
      ).toBe(1);
      expect(
        updater.events.map(({ name, type, reason }) => [name, type, reason]),
      ).toEqual([
        ['web-1-0', 'Warning', 'InPlaceResizeFailed'],
        ['web-1-1', 'Warning', 'InPlaceResizeFailed'],
        ['web-1-0', 'Normal', 'EvictedByVPA'],
        ['web', 'Normal', 'EvictedPod'],
        ['web-1-1', 'Normal', 'UpdateWaiting'],
      ]);
      expect(updater.events[0]?.message).toMatch(
        /^Not updated to the recommendation of VPA demo\/web \(app: cpu 100m -> 1\): the (resize failed|node cannot hold the resize) \(.*\); eviction is tried next if the replica group allows\.$/,
      );
      expect(updater.events[2]?.message).toContain(
        'the in-place resize failed (app: cpu 100m -> 1)',
      );
      expect(
        await updater.metric('vpa_updater_evictable_pods_total', {
          update_mode: 'InPlaceOrRecreate',
        }),
      ).toBe(1);
    },
  );

  it('evicts, without resizing, a pod whose resize the kubelet found Infeasible', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate })],
      pods: [
        podOf('web-1-0', at, {
          conditions: [
            resizeCondition('PodResizePending', { reason: 'Infeasible' }),
          ],
        }),
        // At target: not a candidate.
        podOf('web-1-1', at, { requests: { cpu: '1', memory: '1Gi' } }),
      ],
    });

    const summary = await updater.run(at);

    expect(updater.actions.podsOf('resize')).toEqual([]);
    expect(updater.actions.podsOf('evict')).toEqual(['web-1-0']);
    expect(summary).toMatchObject({ evicted: 1, resized: 0 });
    expect(updater.events[0]?.message).toContain('Infeasible');
  });

  it('waits on a resize the kubelet has only just deferred', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate })],
      pods: [
        podOf('web-1-0', at, {
          conditions: [
            resizeCondition('PodResizePending', {
              reason: 'Deferred',
              lastTransitionTime: at.toISOString(),
            }),
          ],
        }),
        podOf('web-1-1', at, { requests: { cpu: '1', memory: '1Gi' } }),
      ],
    });

    await updater.run(at);

    expect(updater.actions.calls).toEqual([]);
  });

  it('resizes an Auto VPA in place with --in-place-for-auto, and evicts without it', async () => {
    const at = now();
    const pods = replicaSetPods(['100m', '200m'], at);
    const withFlag = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.Auto })],
      pods,
      settings: { inPlaceForAuto: true },
    });
    const withoutFlag = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.Auto })],
      pods,
    });

    const resized = await withFlag.run(at);
    const evicted = await withoutFlag.run(at);

    expect(withFlag.actions.podsOf('resize')).toEqual(['web-1-0']);
    expect(withFlag.actions.podsOf('evict')).toEqual([]);
    expect(resized).toMatchObject({ resized: 1, evicted: 0 });
    // The gauges keep the declared mode.
    expect(
      await withFlag.metric('vpa_updater_controlled_pods_total', {
        update_mode: 'Auto',
      }),
    ).toBe(2);
    expect(withoutFlag.actions.podsOf('resize')).toEqual([]);
    expect(withoutFlag.actions.podsOf('evict')).toEqual(['web-1-0']);
    expect(evicted).toMatchObject({ resized: 0, evicted: 1 });
  });

  it('leaves an InPlace VPA alone without its feature gate, and never evicts with it', async () => {
    const at = now();
    const pods = replicaSetPods(['100m', '200m'], at);
    const gateOff = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlace })],
      pods,
    });
    const gateOn = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlace })],
      pods,
      settings: { featureGates: { InPlace: true } },
    });
    gateOn.actions.defaultResize = 'failed';

    await gateOff.run(at);
    await gateOn.run(at);

    expect(gateOff.actions.calls).toEqual([]);
    expect(gateOn.actions.podsOf('resize')).toEqual(['web-1-0', 'web-1-1']);
    expect(gateOn.actions.podsOf('evict')).toEqual([]);
  });
});

describe('runUpdaterCycle: what is left alone', () => {
  it('skips Off and Initial VPAs and ignored namespaces; an unsupported target is a recovered error', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [
        vpaOf('off', { mode: UpdateMode.Off }),
        vpaOf('initial', { mode: UpdateMode.Initial }),
        vpaOf('sys', { namespace: 'kube-system' }),
        vpaOf('cron'),
        vpaOf('web'),
      ],
      pods: [
        ...replicaSetPods(['100m', '100m'], at, { app: 'off' }),
        ...replicaSetPods(['100m', '100m'], at, { app: 'initial' }),
        ...replicaSetPods(['100m', '100m'], at, {
          app: 'sys',
          namespace: 'kube-system',
        }),
        ...replicaSetPods(['100m', '100m'], at, { app: 'cron' }),
        ...replicaSetPods(['100m', '100m'], at),
      ],
      ignoredNamespaces: ['kube-system'],
      targets: {
        'demo/cron': { unsupported: 'CronJob demo/cron has no scale' },
      },
    });

    const summary = await updater.run(at);

    expect(updater.resolved).toEqual(['demo/cron', 'demo/web']);
    expect(updater.actions.podsOf('evict')).toEqual(['web-1-0']);
    expect(summary).toEqual({
      vpas: 1,
      pods: 2,
      evicted: 1,
      resized: 0,
      errors: 1,
    });
    expect(updater.recovered).toEqual([
      {
        kind: 'vpa-target',
        message: 'VPA skipped: CronJob demo/cron has no scale',
        fields: { vpa: 'demo/cron' },
      },
    ]);
    expect(await updater.metric(RECOVERED, { kind: 'vpa-target' })).toBe(1);
  });

  it('does nothing while the admission controller status is stale', async () => {
    const at = now();
    let asked = 0;
    const stale = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: replicaSetPods(FOUR, at),
      admissionControllerAlive: async () => {
        asked += 1;
        return false;
      },
    });
    const fresh = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: replicaSetPods(FOUR, at),
      admissionControllerAlive: async () => true,
    });

    const skipped = await stale.run(at);
    const done = await fresh.run(at);

    expect(asked).toBe(1);
    expect(skipped.skipped).toMatch(/admission controller status is stale/);
    expect(skipped).toMatchObject({ vpas: 0, pods: 0, evicted: 0 });
    expect(stale.actions.calls).toEqual([]);
    expect(stale.resolved).toEqual([]);
    expect(stale.events).toEqual([]);
    expect(
      await stale.metric('tandem_updater_skipped_cycles_total', {
        reason: 'admission-controller-status',
      }),
    ).toBe(1);
    expect(done.skipped).toBeUndefined();
    expect(done.evicted).toBe(2);
    expect(await fresh.metric('tandem_updater_skipped_cycles_total')).toBe(0);
  });

  it('leaves a group alone when its configured replicas are unknown or below --min-replicas', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web'), vpaOf('api'), vpaOf('solo')],
      pods: [
        ...replicaSetPods(['100m', '100m'], at),
        ...replicaSetPods(['100m', '100m'], at, { app: 'api' }),
        ...replicaSetPods(['100m'], at, { app: 'solo' }),
      ],
      replicas: { 'ReplicaSet/web-1': 0 },
    });

    await updater.run(at);

    expect(updater.actions.podsOf('evict')).toEqual(['api-1-0']);
  });
});

describe('runUpdaterCycle: limits and failures', () => {
  it('stops the cycle when the eviction rate limiter cannot give a token before the deadline', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web'), vpaOf('api')],
      pods: [
        ...replicaSetPods(FOUR, at),
        ...replicaSetPods(FOUR, at, { app: 'api' }),
      ],
      evictionLimiter: new TokenBucket(1, 1),
      intervalMs: 500,
    });

    const summary = await updater.run(at);

    expect(updater.actions.podsOf('evict')).toEqual(['web-1-3']);
    expect(summary).toMatchObject({ evicted: 1, errors: 0 });
    expect(updater.sleeps).toEqual([]);
    expect(updater.events.at(-1)).toMatchObject({
      name: 'web-1-1',
      reason: 'UpdateRateLimited',
      message:
        'Not updated to the recommendation of VPA demo/web (app: cpu 100m -> 1): the eviction rate limit has no token before the cycle ends.',
    });
    expect(
      await updater.metric(FAILED_EVICTIONS, {
        reason: 'EvictionRateLimiterWaitFailed',
        ...WEB,
      }),
    ).toBe(1);
    expect(await updater.metric(FAILED_EVICTIONS)).toBe(1);
    expect(await updater.metric(EVICTED)).toBe(1);
    // The gauges hold what the cycle saw before it stopped.
    expect(await updater.metric('vpa_updater_controlled_pods_total')).toBe(4);
  });

  it('waits for eviction tokens that come before the deadline', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web'), vpaOf('api')],
      pods: [
        ...replicaSetPods(FOUR, at),
        ...replicaSetPods(FOUR, at, { app: 'api' }),
      ],
      evictionLimiter: new TokenBucket(1, 1),
      intervalMs: 10_000,
    });

    const summary = await updater.run(at);

    expect(summary.evicted).toBe(4);
    expect(updater.sleeps).toHaveLength(3);
    updater.sleeps.forEach((ms, index) =>
      expect(ms).toBeGreaterThan((index + 1) * 1000 - 100),
    );
    expect(await updater.metric(FAILED_EVICTIONS)).toBe(0);
  });

  it('stops resizing when the in-place rate limiter runs out', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate })],
      pods: replicaSetPods(FOUR, at),
      inPlaceLimiter: new TokenBucket(1, 1),
      intervalMs: 500,
    });

    const summary = await updater.run(at);

    expect(updater.actions.podsOf('resize')).toEqual(['web-1-3']);
    expect(updater.actions.podsOf('evict')).toEqual([]);
    expect(summary.resized).toBe(1);
    expect(
      await updater.metric(FAILED_RESIZES, {
        reason: 'InPlaceUpdateRateLimiterWaitFailed',
      }),
    ).toBe(1);
  });

  it('changes nothing in a dry run, yet counts what it would do within the restriction', async () => {
    const at = now();
    const evicting = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: replicaSetPods(FOUR, at),
      dryRun: true,
      actions: dryRunActions,
    });
    const resizing = fakeUpdater({
      vpas: [vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate })],
      pods: replicaSetPods(FOUR, at),
      dryRun: true,
      actions: dryRunActions,
    });

    const evictSummary = await evicting.run(at);
    const resizeSummary = await resizing.run(at);

    expect(evictSummary).toMatchObject({ evicted: 2, errors: 0 });
    expect(evicting.events).toEqual([]);
    expect(
      await evicting.metric('tandem_updater_dry_run_actions_total', {
        action: 'evict',
      }),
    ).toBe(2);
    expect(await evicting.metric(EVICTED)).toBe(0);
    expect(
      evicting.logs
        .filter((line) => line['msg'] === 'dry run: would evict pod')
        .map((line) => line['pod']),
    ).toEqual(['demo/web-1-3', 'demo/web-1-1']);

    expect(resizeSummary).toMatchObject({ resized: 2, evicted: 0 });
    expect(resizing.events).toEqual([]);
    expect(
      await resizing.metric('tandem_updater_dry_run_actions_total', {
        action: 'resize',
      }),
    ).toBe(2);
    expect(await resizing.metric(RESIZED)).toBe(0);
  });

  it('goes on with the next VPA when an action throws for one', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web'), vpaOf('api')],
      pods: [
        ...replicaSetPods(FOUR, at),
        ...replicaSetPods(FOUR, at, { app: 'api' }),
      ],
    });
    updater.actions.evictAnswers.set(
      'web-1-3',
      new Error('connect ECONNREFUSED 10.0.0.1:443'),
    );

    const summary = await updater.run(at);

    expect(updater.actions.podsOf('evict')).toEqual([
      'web-1-3',
      'api-1-3',
      'api-1-1',
    ]);
    expect(summary).toMatchObject({ vpas: 2, pods: 8, evicted: 2, errors: 1 });
    expect(updater.recovered).toEqual([
      {
        kind: 'vpa-update',
        message: 'VPA pass failed: connect ECONNREFUSED 10.0.0.1:443',
        fields: { vpa: 'demo/web' },
      },
    ]);
    expect(await updater.metric(RECOVERED, { kind: 'vpa-update' })).toBe(1);
    expect(
      await updater.metric(EVICTED, { vpa_name: 'api', vpa_namespace: 'demo' }),
    ).toBe(2);
  });

  it('goes on with the next VPA when a resize throws', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [
        vpaOf('web', { mode: UpdateMode.InPlaceOrRecreate }),
        vpaOf('api', { mode: UpdateMode.InPlaceOrRecreate }),
      ],
      pods: [
        ...replicaSetPods(['100m', '200m'], at),
        ...replicaSetPods(['100m', '200m'], at, { app: 'api' }),
      ],
    });
    updater.actions.resizeAnswers.set('web-1-0', new Error('socket hang up'));

    const summary = await updater.run(at);

    expect(updater.actions.podsOf('resize')).toEqual(['web-1-0', 'api-1-0']);
    expect(summary).toMatchObject({ resized: 1, errors: 1 });
  });

  it('skips a pod with a malformed quantity as a recovered error and updates the others', async () => {
    const at = now();
    const pods = replicaSetPods(FOUR, at);
    const broken = pods[3];
    if (broken === undefined) throw new Error('no pod');
    broken.spec.containers[0] = {
      name: 'app',
      resources: { requests: { cpu: 'lots', memory: '1Gi' } },
    };
    const updater = fakeUpdater({ vpas: [vpaOf('web')], pods });

    const summary = await updater.run(at);

    expect(updater.recovered).toHaveLength(1);
    expect(updater.recovered[0]).toMatchObject({
      kind: 'pod-decision',
      fields: { pod: 'demo/web-1-3', vpa: 'demo/web' },
    });
    expect(updater.recovered[0]?.message).toMatch(/^pod skipped: .*lots/);
    expect(updater.actions.podsOf('evict')).toEqual(['web-1-1', 'web-1-0']);
    expect(summary).toMatchObject({ evicted: 2, errors: 1 });
    expect(await updater.metric(RECOVERED, { kind: 'pod-decision' })).toBe(1);
  });
});

describe("runUpdaterCycle: only the pods of a VPA's target", () => {
  it('leaves alone a bare pod and a Job’s pod that carry the target’s labels', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: [
        ...replicaSetPods(['50m', '50m'], at),
        podOf('bare', at, { owner: null, requests: { cpu: '10m' } }),
        podOf('report-x', at, {
          owner: { kind: 'Job', name: 'report' },
          requests: { cpu: '10m' },
        }),
      ],
      replicas: { 'ReplicaSet/web-1': 2 },
    });

    const summary = await updater.run(at);

    expect(summary.pods).toBe(2);
    expect(updater.actions.podsOf('evict')).toEqual(['web-1-0']);
  });

  it('walks each owner once per cycle, and only in namespaces with a VPA', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: [
        ...replicaSetPods(FOUR, at),
        podOf('elsewhere', at, { namespace: 'other' }),
      ],
    });

    await updater.run(at);

    expect(updater.walked).toEqual(['demo/ReplicaSet/web-1']);
  });

  it('controls no pod whose owner chain cannot be read, and counts it once per owner', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: replicaSetPods(FOUR, at),
      controllers: {
        'ReplicaSet/web-1': new Error('ReplicaSet demo/web-1 does not exist'),
      },
    });

    const summary = await updater.run(at);

    expect(summary).toMatchObject({ vpas: 0, pods: 0, evicted: 0, errors: 1 });
    expect(updater.recovered).toEqual([
      {
        kind: 'pod-controller',
        message:
          'pods not controlled, their owner chain cannot be read: ReplicaSet demo/web-1 does not exist',
        fields: { owner: 'ReplicaSet demo/web-1' },
      },
    ]);
    expect(await updater.metric(RECOVERED, { kind: 'pod-controller' })).toBe(1);
  });

  it('controls no pod whose chain has no top-most controller (a Node, an unscalable owner)', async () => {
    const at = now();
    const updater = fakeUpdater({
      vpas: [vpaOf('web')],
      pods: replicaSetPods(FOUR, at),
      controllers: { 'ReplicaSet/web-1': null },
    });

    const summary = await updater.run(at);

    expect(summary).toMatchObject({ vpas: 0, pods: 0, errors: 0 });
  });
});
