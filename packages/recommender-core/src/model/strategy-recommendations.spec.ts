import {
  AggregateContainerState,
  DEFAULT_AGGREGATION_CONFIG,
  DEFAULT_RECOMMENDER_CONFIG,
  toContainerRecommendations,
  type ResourceAmounts,
} from '@tandem/estimators';
import {
  STRATEGY_ANNOTATION,
  STRATEGY_STATE_ANNOTATION,
  vpaStrategy,
  type UsageModel,
} from '@tandem/strategies';
import type { VerticalPodAutoscaler } from '@tandem/vpa-api';
import { ClusterModel, type ClusterModelOptions } from './cluster-model.js';
import { strategySettings } from './vpa-strategy-state.js';
import {
  DAY,
  MIB,
  MINUTE,
  NS,
  podSnapshot,
  selectorFor,
  T0,
  vpaObject,
} from './model.fixtures.js';
import { checkpointsForVpa } from './vpa-checkpoints.js';
import { computeVpaStatus } from './vpa-status.js';

const DECLARED: ResourceAmounts = { cpu: 1000, memory: 1024 * MIB };

function annotated(annotations: Record<string, string>): VerticalPodAutoscaler {
  const vpa = vpaObject('web');
  vpa.metadata = { ...vpa.metadata, annotations };
  return vpa;
}

/** CPU 200..650 m in a cycle, memory 300 MiB that reads 0 at the start of every 6th hour. */
function usageAt(minute: number, scale = 1): { cpu: number; memory: number } {
  return {
    cpu: Math.round((200 + (minute % 10) * 50) * scale),
    memory: minute % 360 === 0 ? 0 : 300 * MIB + (minute % 7) * MIB,
  };
}

/** The sample minutes 0..minutes-1, shifted by `gapMinutes` from `gapAfter` on. */
function sampleMinutes(
  minutes: number,
  gapAfter = minutes,
  gapMinutes = 0,
): number[] {
  return Array.from({ length: minutes }, (_, i) =>
    i < gapAfter ? i : i + gapMinutes,
  );
}

function liveModel(
  vpa: VerticalPodAutoscaler,
  minutes: number | readonly number[],
  options: ClusterModelOptions = {},
): ClusterModel {
  const model = new ClusterModel(options);
  model.upsertVpa(vpa, selectorFor({ app: 'web' }));
  const pod = podSnapshot('web-1', { app: 'web' });
  model.upsertPod(
    {
      ...pod,
      containers: pod.containers.map((c) => ({ ...c, declared: DECLARED })),
    },
    T0,
  );
  feedLive(
    model,
    typeof minutes === 'number' ? sampleMinutes(minutes) : minutes,
  );
  return model;
}

/** Samples of usageAt (× `scale`) at these minutes, from the pod's container `app`. */
function feedLive(
  model: ClusterModel,
  minutes: readonly number[],
  scale = 1,
  podName = 'web-1',
): void {
  for (const minute of minutes) {
    const usage = usageAt(minute, scale);
    for (const resource of ['cpu', 'memory'] as const)
      model.addSample(NS, podName, 'app', {
        timeMs: T0 + minute * MINUTE,
        resource,
        usage: usage[resource],
      });
  }
}

/** What `tandem replay`'s model of the strategy gives for the same usage, as status quantities. */
function replayed(
  annotations: Record<string, string>,
  minutes: number | readonly number[],
  nowMs: number,
) {
  const model = replayModel(annotations);
  feedReplay(
    model,
    typeof minutes === 'number' ? sampleMinutes(minutes) : minutes,
  );
  return replayTarget(model, nowMs);
}

function replayModel(annotations: Record<string, string>): UsageModel {
  const read = vpaStrategy(annotations, 'upstream');
  if ('error' in read) throw new Error(read.error);
  return read.strategy.model(T0);
}

function feedReplay(
  model: UsageModel,
  minutes: readonly number[],
  scale = 1,
): void {
  for (const minute of minutes) {
    const { cpu, memory } = usageAt(minute, scale);
    model.addUsage(T0 + minute * MINUTE, cpu, memory);
  }
}

function replayTarget(model: UsageModel, nowMs: number) {
  const [recommendation] = toContainerRecommendations(
    new Map([['app', model.recommend(nowMs, DECLARED)]]),
  );
  return recommendation?.target;
}

function liveTarget(model: ClusterModel, nowMs: number) {
  return computeVpaStatus(model, `${NS}/web`, { nowMs })?.recommendation
    ?.containerRecommendations?.[0]?.target;
}

describe('the model runs the strategy a VPA names', () => {
  const minutes = 2 * 24 * 60;
  const nowMs = T0 + minutes * MINUTE;

  it.each([['upstream'], ['tandem'], ['vivo'], ['autopilot']])(
    '%s: the live recommendation is the strategy on the same usage',
    (name) => {
      const annotations = { [STRATEGY_ANNOTATION]: name };
      expect(
        liveTarget(liveModel(annotated(annotations), minutes), nowMs),
      ).toEqual(replayed(annotations, minutes, nowMs));
    },
  );

  it.each([['upstream'], ['tandem']])(
    "%s: the recommender's upstream flags at their defaults give the strategy's own numbers",
    (name) => {
      const annotations = { [STRATEGY_ANNOTATION]: name };
      const flags = {
        strategies: strategySettings(
          'upstream',
          DEFAULT_RECOMMENDER_CONFIG,
          DEFAULT_AGGREGATION_CONFIG,
          false,
        ),
      };
      expect(
        liveTarget(liveModel(annotated(annotations), minutes, flags), nowMs),
      ).toEqual(replayed(annotations, minutes, nowMs));
    },
  );

  it.each([['upstream'], ['tandem']])(
    '%s: the live recommendation is the strategy on the same usage with a 3-day gap in it',
    (name) => {
      const annotations = { [STRATEGY_ANNOTATION]: name };
      const minutes = sampleMinutes(3 * 24 * 60, 2 * 24 * 60, 3 * 24 * 60);
      const end = T0 + ((minutes.at(-1) ?? 0) + 1) * MINUTE;
      expect(
        liveTarget(liveModel(annotated(annotations), minutes), end),
      ).toEqual(replayed(annotations, minutes, end));
    },
  );

  it('tandem: holds its recommendation from cycle to cycle, as its replay model does', () => {
    const annotations = { [STRATEGY_ANNOTATION]: 'tandem' };
    const firstDay = sampleMinutes(24 * 60);
    const secondDay = firstDay.map((minute) => minute + 24 * 60);
    const live = liveModel(annotated(annotations), firstDay);
    const replay = replayModel(annotations);
    feedReplay(replay, firstDay);
    const first = liveTarget(live, T0 + DAY);
    expect(first).toEqual(replayTarget(replay, T0 + DAY));
    // A second day 10 % busier: within the band, so both hold the first day's target.
    feedLive(live, secondDay, 1.1);
    feedReplay(replay, secondDay, 1.1);
    expect(liveTarget(live, T0 + 2 * DAY)).toEqual(first);
    expect(replayTarget(replay, T0 + 2 * DAY)).toEqual(first);
    const unheld = replayModel({
      ...annotations,
      'tandem.dev/hold-band': '0',
    });
    feedReplay(unheld, firstDay);
    feedReplay(unheld, secondDay, 1.1);
    expect(replayTarget(unheld, T0 + 2 * DAY)).not.toEqual(first);
  });

  it('tandem: an aggregate whose history waited out a gap still expires 8 days after its last sample', () => {
    const model = liveModel(
      annotated({ [STRATEGY_ANNOTATION]: 'tandem' }),
      sampleMinutes(2 * 60, 60, 3 * 24 * 60),
    );
    const last = T0 + (3 * 24 * 60 + 2 * 60 - 1) * MINUTE;
    model.removePodsNotIn([]);
    expect(model.garbageCollect(last + 8 * DAY - MINUTE)).toBe(0);
    expect(model.garbageCollect(last + 8 * DAY)).toBe(1);
  });

  it('gives each strategy its own number on that usage (vivo: the CPU of upstream, memory as declared)', () => {
    const targets = ['upstream', 'tandem', 'vivo', 'autopilot'].map((name) =>
      liveTarget(
        liveModel(annotated({ [STRATEGY_ANNOTATION]: name }), minutes),
        nowMs,
      ),
    );
    expect(new Set(targets.map((target) => JSON.stringify(target))).size).toBe(
      4,
    );
    expect(targets[2]).toEqual({ cpu: targets[0]?.cpu, memory: '1Gi' });
  });

  it('starts vivo from declared × coefficient before a day of history', () => {
    const vpa = annotated({
      [STRATEGY_ANNOTATION]: 'vivo',
      'tandem.dev/coefficient': '0.3',
    });
    expect(liveTarget(liveModel(vpa, 60), T0 + 60 * MINUTE)).toEqual({
      cpu: '300m',
      memory: '1Gi',
    });
  });

  it('runs the default strategy, and keeps the reason, for annotations that do not read', () => {
    const model = liveModel(
      annotated({ [STRATEGY_ANNOTATION]: 'autopilto' }),
      minutes,
    );
    const tracked = model.vpa(`${NS}/web`);
    expect(tracked?.strategy.strategy.name).toBe('upstream');
    expect(tracked?.strategy.problem).toMatch(/unknown strategy 'autopilto'/);
    expect(liveTarget(model, nowMs)).toEqual(
      replayed({ [STRATEGY_ANNOTATION]: 'upstream' }, minutes, nowMs),
    );
  });

  it('takes --default-strategy for a VPA without the annotation', () => {
    const model = new ClusterModel({
      strategies: {
        defaultStrategy: 'autopilot',
        fallbacks: {},
        perVpaConfig: false,
      },
    });
    model.upsertVpa(vpaObject('web'), selectorFor({ app: 'web' }));
    expect(model.vpa(`${NS}/web`)?.strategy.strategy.name).toBe('autopilot');
  });
});

describe('autopilot state in checkpoints', () => {
  const autopilot = { [STRATEGY_ANNOTATION]: 'autopilot' };
  const minutes = DAY / MINUTE;
  const nowMs = T0 + DAY;

  /** The checkpoint of a day of autopilot, and its strategy-state annotation. */
  function written() {
    const [checkpoint] = checkpointsForVpa(
      liveModel(annotated(autopilot), minutes),
      `${NS}/web`,
      nowMs,
    );
    return {
      checkpoint,
      text: checkpoint?.metadata?.annotations?.[STRATEGY_STATE_ANNOTATION],
    };
  }

  it('is written beside the histograms and loads back into a fresh model', () => {
    const { checkpoint, text } = written();
    expect(JSON.parse(text ?? '{}')).toMatchObject({
      version: 1,
      strategy: 'autopilot',
    });
    const restored = new ClusterModel();
    restored.upsertVpa(annotated(autopilot), selectorFor({ app: 'web' }));
    expect(
      restored.loadCheckpoint(`${NS}/web`, 'app', checkpoint?.status, text),
    ).toEqual({ ok: true });
    expect(
      restored.vpa(`${NS}/web`)?.strategy.live.get('app')?.state.empty,
    ).toBe(false);
    // Upstream's reader takes the same object: only spec and status, which are unchanged.
    const upstreamRead = AggregateContainerState.fromCheckpoint(
      checkpoint?.status,
    );
    expect(upstreamRead.totalSamplesCount).toBe(minutes);
  });

  it('is ignored when the VPA runs another strategy now, and refused when corrupt', () => {
    const { checkpoint, text } = written();
    const upstream = new ClusterModel();
    upstream.upsertVpa(vpaObject('web'), selectorFor({ app: 'web' }));
    expect(
      upstream.loadCheckpoint(`${NS}/web`, 'app', checkpoint?.status, text),
    ).toEqual({
      ok: true,
    });
    expect(upstream.vpa(`${NS}/web`)?.strategy.live.size).toBe(0);
    const corrupt = new ClusterModel();
    corrupt.upsertVpa(annotated(autopilot), selectorFor({ app: 'web' }));
    const result = corrupt.loadCheckpoint(
      `${NS}/web`,
      'app',
      checkpoint?.status,
      '{',
    );
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'corrupt-checkpoint' },
    });
    // The upstream history of a checkpoint with a corrupt state is still loaded.
    expect(corrupt.vpa(`${NS}/web`)?.initialState.has('app')).toBe(true);
  });
});

describe('tandem state in checkpoints', () => {
  const tandem = { [STRATEGY_ANNOTATION]: 'tandem' };
  // Two days, a 3-day gap, a day: the clock has skipped time worth carrying.
  const before = sampleMinutes(2 * 24 * 60, 24 * 60, 3 * 24 * 60);
  const lastMinute = before.at(-1) ?? 0;
  const after = sampleMinutes(6 * 60).map((m) => m + lastMinute + 1);
  const nowMs = T0 + (lastMinute + 1) * MINUTE;
  const endMs = T0 + ((after.at(-1) ?? 0) + 1) * MINUTE;

  function restarted(text: string | undefined): ClusterModel {
    const [checkpoint] = checkpointsForVpa(
      liveModel(annotated(tandem), before),
      `${NS}/web`,
      nowMs,
    );
    const model = new ClusterModel();
    model.upsertVpa(annotated(tandem), selectorFor({ app: 'web' }));
    expect(
      model.loadCheckpoint(
        `${NS}/web`,
        'app',
        checkpoint?.status,
        text === 'written'
          ? checkpoint?.metadata?.annotations?.[STRATEGY_STATE_ANNOTATION]
          : text,
      ),
    ).toEqual({ ok: true });
    model.upsertPod(podSnapshot('web-2', { app: 'web' }), nowMs);
    feedLive(model, after, 1, 'web-2');
    return model;
  }

  it('carries the history clock, so a restarted recommender goes on as one that never stopped', () => {
    const [checkpoint] = checkpointsForVpa(
      liveModel(annotated(tandem), before),
      `${NS}/web`,
      nowMs,
    );
    const text = checkpoint?.metadata?.annotations?.[STRATEGY_STATE_ANNOTATION];
    expect(JSON.parse(text ?? '{}')).toMatchObject({
      version: 1,
      strategy: 'tandem',
      // The gap is 3 days and a minute from sample to sample; an hour of it counts.
      state: { clock: { skippedMs: 3 * DAY + MINUTE - 60 * MINUTE } },
    });
    const once = liveModel(annotated(tandem), [...before, ...after]);
    expect(liveTarget(restarted('written'), endMs)).toEqual(
      liveTarget(once, endMs),
    );
  });

  it('loads a checkpoint written before tandem kept state (no annotation): the clock starts afresh', () => {
    const model = restarted(undefined);
    const clock = model.vpa(`${NS}/web`)?.strategy.live.get('app')?.state.clock;
    expect(clock?.save().skippedMs).toBe(0);
    expect(liveTarget(model, endMs)).toBeDefined();
  });
});
