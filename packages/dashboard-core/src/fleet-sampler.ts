import { yieldToEventLoop } from './event-loop.js';
import { fleetTargets, type FleetTarget } from './fleet-targets.js';
import { historyValues } from './history-values.js';
import type {
  ObservedHpa,
  ObservedPod,
  ObservedVpa,
  UsageByPod,
} from './observed.js';
import { WorkloadHistory, type HistoryTimings } from './workload-history.js';
import { summarizeWorkload, type WorkloadSummary } from './workload-summary.js';
import {
  compileLabelSelector,
  type Labels,
  type VpaTarget,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';

/**
 * What one sample reads; the app wires it to its caches and the metrics API. The sampler
 * never throws for what they answer: a failure is reported and the sample goes on.
 */
export interface FleetSources {
  vpas(): readonly ObservedVpa[];
  hpas(): readonly ObservedHpa[];
  /** The namespace's pods the HPA would count, with their labels. */
  pods(namespace: string): readonly { labels: Labels; pod: ObservedPod }[];
  /** A target's pod selector, resolved as upstream matches pods to a VPA. */
  resolve(vpaLike: VerticalPodAutoscaler): Promise<VpaTarget>;
  /** One namespace's usage now. */
  usage(namespace: string): Promise<UsageByPod>;
  onError(what: string, error: unknown): void;
}

export interface FleetSampler {
  /** Reads every workload once, records its history, and keeps the summaries. */
  sample(): Promise<void>;
  summaries(): readonly WorkloadSummary[];
  history(key: string): WorkloadHistory | undefined;
  /**
   * The pods matched to the workload over the history window, by name: the timeline shows
   * the events of pods already gone (an evicted pod's `EvictedByVPA`).
   */
  podNames(key: string): readonly string[];
  /** When the last sample ended, undefined before the first. */
  lastSampleMs(): number | undefined;
}

/** Workloads sampled between two turns of the event loop: about 3 ms of CPU. */
const SLICE = 100;

export function fleetSampler(
  sources: FleetSources,
  timings: HistoryTimings,
  now: () => number = Date.now,
): FleetSampler {
  const histories = new Map<string, WorkloadHistory>();
  const seenPods = new Map<string, Map<string, number>>();
  let summaries: WorkloadSummary[] = [];
  let sampledAt: number | undefined;
  return {
    async sample() {
      const targets = fleetTargets(sources.vpas(), sources.hpas());
      const namespaces = [
        ...new Set(targets.map((target) => target.namespace)),
      ];
      const usage = new Map(
        await Promise.all(
          namespaces.map(async (namespace) => {
            try {
              return [namespace, await sources.usage(namespace)] as const;
            } catch (error) {
              sources.onError('usage', error);
              return [namespace, new Map()] as const;
            }
          }),
        ),
      );
      const timeMs = now();
      const sampleOne = async (target: FleetTarget) => {
        const matched = await podsOf(sources, target.namespace, target.ref);
        const seen = seenPods.get(target.key) ?? new Map<string, number>();
        for (const pod of matched) seen.set(pod.name, timeMs);
        for (const [name, lastMs] of seen)
          if (timeMs - lastMs > timings.keepMs) seen.delete(name);
        seenPods.set(target.key, seen);
        const summary = summarizeWorkload({
          namespace: target.namespace,
          kind: target.ref.kind,
          name: target.ref.name,
          vpa: target.vpa,
          hpa: target.hpa,
          pods: matched,
          usage: usage.get(target.namespace) ?? new Map(),
        });
        let history = histories.get(target.key);
        if (history === undefined) {
          history = new WorkloadHistory(timings);
          histories.set(target.key, history);
        }
        history.record(timeMs, historyValues(summary));
        return summary;
      };
      // A slice at a time, letting requests in between: a sample of 2,000 workloads is
      // tens of milliseconds of CPU that /api/ answers would otherwise wait behind.
      const sampled: WorkloadSummary[] = [];
      for (let from = 0; from < targets.length; from += SLICE) {
        if (from > 0) await yieldToEventLoop();
        sampled.push(
          ...(await Promise.all(
            targets.slice(from, from + SLICE).map(sampleOne),
          )),
        );
      }
      summaries = sampled;
      // A workload nobody targets any more takes its history with it.
      const current = new Set(targets.map((target) => target.key));
      for (const key of histories.keys())
        if (!current.has(key)) {
          histories.delete(key);
          seenPods.delete(key);
        }
      sampledAt = now();
    },
    summaries: () => summaries,
    history: (key) => histories.get(key),
    podNames: (key) => [...(seenPods.get(key)?.keys() ?? [])],
    lastSampleMs: () => sampledAt,
  };
}

async function podsOf(
  sources: FleetSources,
  namespace: string,
  ref: { apiVersion?: string; kind: string; name: string },
): Promise<ObservedPod[]> {
  let target: VpaTarget;
  try {
    target = await sources.resolve({
      apiVersion: 'autoscaling.k8s.io/v1',
      kind: 'VerticalPodAutoscaler',
      metadata: { namespace, name: `${ref.kind}/${ref.name}` },
      spec: {
        targetRef: {
          apiVersion: ref.apiVersion ?? '',
          kind: ref.kind,
          name: ref.name,
        },
      },
    } as VerticalPodAutoscaler);
  } catch (error) {
    sources.onError('target', error);
    return [];
  }
  if (!('selector' in target)) return [];
  let selector;
  try {
    selector = compileLabelSelector(target.selector);
  } catch (error) {
    sources.onError('target', error);
    return [];
  }
  return sources
    .pods(namespace)
    .filter((entry) => selector.matches(entry.labels))
    .map((entry) => entry.pod);
}
