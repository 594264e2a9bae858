import { ClusterModel } from '../model/cluster-model.js';
import {
  HOUR,
  MIB,
  MINUTE,
  NS,
  podSnapshot,
  selectorFor,
  T0,
  vpaObject,
} from '../model/model.fixtures.js';
import { computeVpaStatus } from '../model/vpa-status.js';
import { applyHistory } from './apply-history.js';
import { clusterHistory } from './cluster-history.js';
import {
  LABEL_NAMES,
  podLabelsSeries,
  usageSeries,
} from './history.fixtures.js';

const NOW = T0 + 6 * HOUR;

/** Six hours of varying usage of one container, one point per 5 minutes. */
const cpuCores = (i: number) => 0.1 + (i % 7) * 0.05;
const memoryBytes = (i: number) => (200 + (i % 5) * 30) * MIB;
const STEPS = 72;
const times = Array.from({ length: STEPS }, (_, i) => T0 + i * 5 * MINUTE);

function webModel(memorySaver = false): ClusterModel {
  const model = new ClusterModel({ memorySaver });
  model.upsertVpa(vpaObject('web'), selectorFor({ app: 'web' }));
  return model;
}

function historyOf(pod: string, labels: Record<string, string>) {
  return clusterHistory(
    {
      cpu: [
        usageSeries(
          NS,
          pod,
          'app',
          times.map((t, i) => [t, cpuCores(i)]),
        ),
      ],
      memory: [
        usageSeries(
          NS,
          pod,
          'app',
          times.map((t, i) => [t, memoryBytes(i)]),
        ),
      ],
      podLabels: [podLabelsSeries(NS, pod, labels, [times.at(-1) ?? T0])],
    },
    LABEL_NAMES,
  );
}

describe('applyHistory', () => {
  it('gives the same recommendation as the same samples arriving live', () => {
    const replayed = webModel();
    expect(
      applyHistory(replayed, historyOf('web-1', { app: 'web' }), NOW),
    ).toEqual({
      pods: 1,
      containers: 1,
      samples: 2 * STEPS,
    });

    const live = webModel();
    live.upsertPod(podSnapshot('web-1', { app: 'web' }), T0);
    times.forEach((timeMs, i) => {
      live.addSample(NS, 'web-1', 'app', {
        timeMs,
        resource: 'cpu',
        usage: Math.trunc(cpuCores(i) * 1000),
      });
      live.addSample(NS, 'web-1', 'app', {
        timeMs,
        resource: 'memory',
        usage: memoryBytes(i),
      });
    });

    const aggregate = replayed.aggregatesForVpa(`${NS}/web`).get('app');
    expect(aggregate?.totalSamplesCount).toBe(STEPS);
    expect(aggregate?.firstSampleStartMs).toBe(T0);
    expect(aggregate?.lastSampleStartMs).toBe(times.at(-1));
    const status = computeVpaStatus(replayed, `${NS}/web`, { nowMs: NOW });
    expect(status?.recommendation?.containerRecommendations).toHaveLength(1);
    expect(status?.recommendation).toEqual(
      computeVpaStatus(live, `${NS}/web`, { nowMs: NOW })?.recommendation,
    );
    // Six hours of history give a finite upper bound (no history: 1e14 cores).
    expect(
      status?.recommendation?.containerRecommendations?.[0]?.upperBound?.[
        'cpu'
      ],
    ).not.toBe('100G');
  });

  it('keeps the history of a pod that no longer exists once the pod listing drops it', () => {
    const model = webModel();
    applyHistory(model, historyOf('web-gone', { app: 'web' }), NOW);
    expect(model.podKeys()).toEqual([`${NS}/web-gone`]);
    model.removePodsNotIn([]);
    expect(model.podKeys()).toEqual([]);
    expect(
      model.aggregatesForVpa(`${NS}/web`).get('app')?.totalSamplesCount,
    ).toBe(STEPS);
  });

  it('leaves out, with the memory saver, pods whose last labels no VPA selects', () => {
    const model = webModel(true);
    const history = new Map([
      ...historyOf('web-1', { app: 'web' }),
      ...historyOf('batch-1', { app: 'batch' }),
    ]);
    expect(applyHistory(model, history, NOW)).toEqual({
      pods: 1,
      containers: 1,
      samples: 2 * STEPS,
    });
    expect(model.podKeys()).toEqual([`${NS}/web-1`]);
  });

  it('counts only the samples the model accepts', () => {
    const model = webModel();
    const history = historyOf('web-1', { app: 'web' });
    const samples = history.get(`${NS}/web-1`)?.containers.get('app') ?? [];
    // A duplicate CPU sample (same time) is discarded by the container, as upstream does.
    samples.splice(1, 0, { timeMs: T0, resource: 'cpu', usage: 5 });
    expect(applyHistory(model, history, NOW).samples).toBe(2 * STEPS);
  });
});
