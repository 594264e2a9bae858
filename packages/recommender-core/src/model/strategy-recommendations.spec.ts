import {
  AggregateContainerState,
  toContainerRecommendations,
  type ResourceAmounts,
} from '@tandem/estimators';
import {
  STRATEGY_ANNOTATION,
  STRATEGY_STATE_ANNOTATION,
  vpaStrategy,
} from '@tandem/strategies';
import type { VerticalPodAutoscaler } from '@tandem/vpa-api';
import { ClusterModel } from './cluster-model.js';
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
function usageAt(minute: number): { cpu: number; memory: number } {
  return {
    cpu: 200 + (minute % 10) * 50,
    memory: minute % 360 === 0 ? 0 : 300 * MIB + (minute % 7) * MIB,
  };
}

function liveModel(vpa: VerticalPodAutoscaler, minutes: number): ClusterModel {
  const model = new ClusterModel();
  model.upsertVpa(vpa, selectorFor({ app: 'web' }));
  const pod = podSnapshot('web-1', { app: 'web' });
  model.upsertPod(
    {
      ...pod,
      containers: pod.containers.map((c) => ({ ...c, declared: DECLARED })),
    },
    T0,
  );
  for (let minute = 0; minute < minutes; minute += 1) {
    const timeMs = T0 + minute * MINUTE;
    const { cpu, memory } = usageAt(minute);
    model.addSample(NS, 'web-1', 'app', {
      timeMs,
      resource: 'cpu',
      usage: cpu,
    });
    model.addSample(NS, 'web-1', 'app', {
      timeMs,
      resource: 'memory',
      usage: memory,
    });
  }
  return model;
}

/** What `tandem replay`'s model of the strategy gives for the same usage, as status quantities. */
function replayed(
  annotations: Record<string, string>,
  minutes: number,
  nowMs: number,
) {
  const read = vpaStrategy(annotations, 'upstream');
  if ('error' in read) throw new Error(read.error);
  const model = read.strategy.model(T0);
  for (let minute = 0; minute < minutes; minute += 1) {
    const { cpu, memory } = usageAt(minute);
    model.addUsage(T0 + minute * MINUTE, cpu, memory);
  }
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
