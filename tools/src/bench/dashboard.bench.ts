import {
  DEFAULT_HISTORY_TIMINGS,
  fleetPage,
  fleetSampler,
  workloadsJson,
  type FleetSources,
  type ObservedHpa,
  type ObservedPod,
  type ObservedVpa,
  type PerContainer,
} from '@tandem/dashboard-core';
import { cpuMs, heapUsedAfterGc, median, mediansOfRuns } from './measure.js';
import type { Figure } from './report.js';

/** Heap and ArrayBuffer memory after a collection: the history rings are typed arrays. */
function heldBytes(): number {
  return heapUsedAfterGc() + process.memoryUsage().arrayBuffers;
}

const WORKLOADS = 2000;
const NAMESPACES = 100;
const PODS_EACH = 3;
const MIB = 2 ** 20;
/** Two hours of 15 s samples: the recent ring wraps and the day's coarse ring is in use. */
const SAMPLES = 480;
const ANSWERS = 200;
/** Answers between two samples (a few users and scripts polling every 15 s). */
const ANSWERS_A_SAMPLE = 20;
/**
 * Each figure is the median of this many runs, with their spread: the samples are split
 * into RUNS runs (a median each), the answers repeated RUNS times (a percentile each).
 */
const RUNS = 5;

/**
 * The dashboard's work for 2,000 workloads (100 namespaces, each a Deployment with a VPA
 * and an HPA on Tandem's metric, 3 pods of an app container and a sidecar): one sample of
 * every workload (CPU), the `/api/workloads` answer (its JSON body, what the handler does
 * besides express), a fleet page, and the heap the summaries and a day of history hold.
 * Each history ring is allocated whole on its first sample, so the heap after two hours of
 * samples is the heap of a full day. Every time is the median of RUNS runs with their spread.
 */
export async function dashboardFigures(): Promise<Figure[]> {
  let nowMs = Date.UTC(2026, 10, 27);
  const before = heldBytes();
  const sampler = fleetSampler(
    syntheticFleet(),
    DEFAULT_HISTORY_TIMINGS,
    () => nowMs,
  );
  const sampling = await mediansOfRuns(RUNS, async () => {
    const sampleMs: number[] = [];
    for (let sample = 0; sample < SAMPLES / RUNS; sample += 1) {
      nowMs += DEFAULT_HISTORY_TIMINGS.sampleIntervalMs;
      sampleMs.push((await cpuMs(() => sampler.sample())).ms);
    }
    return { sample: median(sampleMs) };
  });
  const heapBytes = heldBytes() - before;
  let bodyBytes = 0;
  const answering = await mediansOfRuns(RUNS, async () => {
    const answerMs: number[] = [];
    const pageMs: number[] = [];
    const writeMs: number[] = [];
    for (let answer = 0; answer < ANSWERS; answer += 1) {
      if (answer % ANSWERS_A_SAMPLE === 0) {
        nowMs += DEFAULT_HISTORY_TIMINGS.sampleIntervalMs;
        await sampler.sample();
        // As the app's sampling loop does: the JSON is written once a sample, off the
        // request path.
        const started = performance.now();
        workloadsJson(sampler);
        writeMs.push(performance.now() - started);
      }
      let started = performance.now();
      bodyBytes = workloadsJson(sampler).length;
      answerMs.push(performance.now() - started);
      started = performance.now();
      fleetPage(sampler.summaries(), {
        namespace: undefined,
        sort: 'drift',
        descending: true,
        page: 1,
      });
      pageMs.push(performance.now() - started);
    }
    return {
      answer: percentile(answerMs, 0.99),
      write: median(writeMs),
      page: percentile(pageMs, 0.99),
    };
  });
  return [
    {
      name: `dashboard: one sample of ${WORKLOADS} workloads (CPU, median)`,
      ...sampling.sample,
      unit: 'ms',
      target: undefined,
    },
    {
      name: `dashboard: /api/workloads for ${WORKLOADS} workloads, p99 (${(bodyBytes / MIB).toFixed(1)} MiB, express not included)`,
      ...answering.answer,
      unit: 'ms',
      target: { comparison: '<=', value: 50 },
    },
    {
      name: `dashboard: /api/workloads JSON, written once a sample (median)`,
      ...answering.write,
      unit: 'ms',
      target: undefined,
    },
    {
      name: `dashboard: fleet page (sorted, first 100 rows of ${WORKLOADS}), p99`,
      ...answering.page,
      unit: 'ms',
      target: undefined,
    },
    {
      name: `dashboard: heap and typed arrays with 24 h of history of ${WORKLOADS} workloads`,
      value: heapBytes / MIB,
      unit: 'MiB',
      target: { comparison: '<=', value: 200 },
    },
  ];
}

/** The nearest-rank percentile. */
function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(fraction * sorted.length) - 1] ?? Number.NaN;
}

function syntheticFleet(): FleetSources {
  const vpas: ObservedVpa[] = [];
  const hpas: ObservedHpa[] = [];
  const pods = new Map<
    string,
    { labels: Record<string, string>; pod: ObservedPod }[]
  >();
  const usage = new Map<string, Map<string, PerContainer>>();
  const containers = (cpu: number, memory: number): PerContainer => ({
    app: { cpuMillicores: cpu, memoryBytes: memory },
    sidecar: { cpuMillicores: cpu / 10, memoryBytes: memory / 8 },
  });
  for (let i = 0; i < WORKLOADS; i += 1) {
    const namespace = `team-${i % NAMESPACES}`;
    const name = `service-${i}`;
    const targetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name };
    vpas.push({
      namespace,
      name,
      targetRef,
      mode: 'Recreate',
      target: containers(200 + (i % 50), 300 * MIB),
      lowerBound: containers(150, 250 * MIB),
      upperBound: containers(900, 900 * MIB),
    });
    hpas.push({
      namespace,
      name,
      targetRef,
      minReplicas: 1,
      maxReplicas: 10,
      currentReplicas: PODS_EACH,
      desiredReplicas: PODS_EACH,
      metric: {
        type: 'Pods',
        name: 'cpu_utilization_of_original_request',
        targetType: 'AverageValue',
        target: 40,
        current: 38,
      },
    });
    const inNamespace = pods.get(namespace) ?? [];
    const used = usage.get(namespace) ?? new Map<string, PerContainer>();
    for (let p = 0; p < PODS_EACH; p += 1) {
      const podName = `${name}-${p}`;
      inNamespace.push({
        labels: { app: name },
        pod: {
          name: podName,
          pending: false,
          ready: true,
          requests: containers(200, 300 * MIB),
          declared: containers(400, 512 * MIB),
        },
      });
      used.set(podName, containers(150 + p, 200 * MIB));
    }
    pods.set(namespace, inNamespace);
    usage.set(namespace, used);
  }
  return {
    vpas: () => vpas,
    hpas: () => hpas,
    pods: (namespace) => pods.get(namespace) ?? [],
    resolve: (vpa) =>
      Promise.resolve({
        selector: { matchLabels: { app: vpa.spec.targetRef?.name ?? '' } },
      }),
    usage: (namespace) => Promise.resolve(usage.get(namespace) ?? new Map()),
    onError: (what, error) => {
      throw new Error(`the synthetic fleet failed at ${what}`, {
        cause: error,
      });
    },
  };
}
