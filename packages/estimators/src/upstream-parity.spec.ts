import { AggregateContainerState } from './aggregate-container-state.js';
import { ContainerState, StaleOomError } from './container-state.js';
import { recommendPod } from './recommend-pod.js';

// End-to-end parity with upstream. The expected numbers below were produced by feeding the
// very same samples to vertical-pod-autoscaler v1.8.1 (model.ContainerState,
// model.AggregateContainerState, logic.CreatePodResourceRecommender with default flags,
// SaveToCheckpoint/LoadFromCheckpoint), built with Go 1.26 on linux/amd64.

interface Sample {
  kind: 'cpu' | 'memory' | 'oom';
  timeMs: number;
  usage: number;
}

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
const MIB = 1048576;

/** A tiny deterministic generator, so the samples are the same wherever they are built. */
function noise(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Three days of a diurnal web container sampled every minute, one OOM kill, one stale sample. */
function diurnalContainer(): Sample[] {
  const next = noise(7);
  const start = Date.UTC(2024, 2, 4, 9, 30);
  const samples: Sample[] = [];
  for (let minute = 0; minute < 3 * 1440; minute++) {
    const timeMs = start + minute * MINUTE;
    const phase = Math.sin((2 * Math.PI * minute) / 1440);
    samples.push({
      kind: 'cpu',
      timeMs,
      usage: Math.round(300 + 200 * phase + 100 * next()),
    });
    samples.push({
      kind: 'memory',
      timeMs,
      usage: Math.round((400 + 50 * phase + 30 * next()) * MIB),
    });
    if (minute === 2 * 1440 + 720)
      samples.push({ kind: 'oom', timeMs, usage: 512 * MIB });
  }
  samples.push({ kind: 'cpu', timeMs: start + MINUTE, usage: 9999 });
  return samples;
}

/** A sidecar sampled every 5 minutes with a 9-day gap, and an OOM too old to count. */
function gappySidecar(): Sample[] {
  const next = noise(11);
  const start = Date.UTC(2024, 1, 20, 23, 58);
  const samples: Sample[] = [];
  for (let step = 0; step < 600; step++) {
    const timeMs = start + step * 5 * MINUTE + (step >= 300 ? 9 * DAY : 0);
    samples.push({
      kind: 'cpu',
      timeMs,
      usage: Math.round(20 + 40 * next() ** 3),
    });
    samples.push({
      kind: 'memory',
      timeMs,
      usage: Math.round((60 + 10 * next()) * MIB),
    });
  }
  samples.push({ kind: 'oom', timeMs: start, usage: 64 * MIB });
  return samples;
}

/** Feeds samples through a ContainerState; returns the aggregate and the indices refused. */
function replay(samples: Sample[]): {
  aggregate: AggregateContainerState;
  refused: number[];
} {
  const aggregate = new AggregateContainerState(0);
  const container = new ContainerState(aggregate);
  const refused: number[] = [];
  samples.forEach((sample, index) => {
    if (sample.kind === 'oom') {
      try {
        container.recordOom(sample.timeMs, sample.usage);
      } catch (error) {
        if (!(error instanceof StaleOomError)) throw error;
        refused.push(index);
      }
    } else if (!container.addSample({ ...sample, resource: sample.kind })) {
      refused.push(index);
    }
  });
  return { aggregate, refused };
}

const asTriples = (map: ReturnType<typeof recommendPod>) =>
  Object.fromEntries(
    [...map].map(([name, r]) => [
      name,
      [
        r.target.cpu,
        r.target.memory,
        r.lowerBound.cpu,
        r.lowerBound.memory,
        r.upperBound.cpu,
        r.upperBound.memory,
      ],
    ]),
  );

describe('parity with upstream on replayed usage', () => {
  const web = replay(diurnalContainer());
  const sidecar = replay(gappySidecar());

  it('refuses the same samples', () => {
    expect(web.refused).toEqual([8641]);
    expect(sidecar.refused).toEqual([1200]);
  });

  it('recommends the same for a two-container pod', () => {
    const recommendation = recommendPod(
      new Map([
        ['c0', web.aggregate],
        ['c1', sidecar.aggregate],
      ]),
    );
    expect(asTriples(recommendation)).toEqual({
      c0: [627, 764046746, 378, 763537518, 894, 1018787962],
      c1: [63, 131072000, 34, 131072000, 265, 318352526],
    });
  });

  it('merges, checkpoints and restores to the same numbers', () => {
    const merged = new AggregateContainerState(0);
    merged.merge(web.aggregate);
    merged.merge(sidecar.aggregate);
    const expected = { all: [627, 764046746, 349, 763599695, 867, 987670183] };
    expect(asTriples(recommendPod(new Map([['all', merged]])))).toEqual(
      expected,
    );

    const checkpoint = merged.saveCheckpoint(Date.UTC(2024, 2, 8));
    expect(checkpoint).toEqual({
      lastUpdateTime: '2024-03-08T00:00:00Z',
      version: 'v3',
      cpuHistogram: {
        referenceTimestamp: '2024-03-04T00:00:00Z',
        bucketWeights: {
          '1': 168,
          '2': 332,
          '3': 111,
          '4': 88,
          '5': 40,
          '8': 824,
          '9': 3305,
          '10': 4777,
          '11': 5864,
          '12': 6894,
          '13': 8141,
          '14': 7852,
          '15': 6705,
          '16': 5543,
          '17': 5629,
          '18': 6886,
          '19': 5954,
          '20': 5752,
          '21': 5319,
          '22': 4838,
          '23': 5579,
          '24': 6781,
          '25': 10000,
          '26': 9583,
          '27': 7289,
          '28': 1555,
        },
        totalWeight: 1924.1868894229165,
      },
      memoryHistogram: {
        referenceTimestamp: '2024-03-05T00:00:00Z',
        bucketWeights: { '6': 1425, '25': 7500, '29': 10000 },
        totalWeight: 9.959927678569322,
      },
      firstSampleStart: '2024-02-20T23:58:00Z',
      lastSampleStart: '2024-03-07T09:29:00Z',
      totalSamplesCount: 4920,
    });

    const restored = AggregateContainerState.fromCheckpoint(
      JSON.parse(JSON.stringify(checkpoint)),
    );
    expect(asTriples(recommendPod(new Map([['all', restored]])))).toEqual(
      expected,
    );
  });
});
