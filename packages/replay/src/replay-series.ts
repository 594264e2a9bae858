import type { ResourceAmounts } from '@tandem/estimators';
import type { Strategy } from '@tandem/strategies';
import { UPDATER_DEFAULTS } from '@tandem/update-decisions';
import { shouldApply, type ApplyMode } from './apply-rule.js';
import { DeclaredCursor, type DeclaredSizes } from './declared-sizes.js';
import { ScoreAccumulator, type SeriesScore } from './series-score.js';

/** One container's recorded usage, in time order: whole millicores and bytes. */
export interface SeriesSamples {
  readonly timesMs: readonly number[];
  readonly cpuMillicores: readonly number[];
  readonly memoryBytes: readonly number[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Upstream's memory history: 8 daily peaks. Scoring starts once it is full. */
export const WARMUP_MS = 8 * DAY_MS;
/** A series shorter than warm-up plus a day is warmed up for a day only... */
export const SHORT_WARMUP_MS = DAY_MS;
/** ...and one shorter than two days is not scored at all. */
const SHORTEST_SCORED_MS = 2 * DAY_MS;
/** A gap in the samples counts for at most an hour: the pod may not have run meanwhile. */
const LONGEST_STEP_MS = HOUR_MS;

/** The warm-up a series of this span gets, or undefined when it is too short to score. */
export function warmupFor(spanMs: number): number | undefined {
  if (spanMs >= WARMUP_MS + DAY_MS) return WARMUP_MS;
  if (spanMs >= SHORTEST_SCORED_MS) return SHORT_WARMUP_MS;
  return undefined;
}

/**
 * Runs one series through `strategy` as a live pod would live it, and scores the time
 * after warm-up (see docs/replay.md). Deterministic: the same input gives the same score.
 * Each sample is, in turn: scored against the request in force; an OOM kill when its memory
 * exceeds the limit (the declared size is both request and limit, so the limit is the
 * memory request), which the strategy hears as upstream's recommender hears one; fed to the
 * strategy; and followed by a recommendation the apply rule may hand to the pod. Without a
 * declared size the pod starts at the strategy's first recommendation. Returns undefined
 * for a series too short to score. `onStep`, when given, hears every sample's time with
 * the request in force at it, warm-up included, from the first sample that has one on (so
 * not at all for a series too short to score).
 */
export function replaySeries(
  seriesId: string,
  samples: SeriesSamples,
  declared: DeclaredSizes | undefined,
  strategy: Strategy,
  mode: ApplyMode,
  onStep?: (timeMs: number, request: ResourceAmounts) => void,
): SeriesScore | undefined {
  const { timesMs, cpuMillicores, memoryBytes } = samples;
  const count = timesMs.length;
  const firstMs = timesMs[0] ?? 0;
  const warmupMs = warmupFor((timesMs[count - 1] ?? firstMs) - firstMs);
  if (warmupMs === undefined) return undefined;
  const scoreFromMs = firstMs + warmupMs;
  const model = strategy.model(firstMs);
  const declaredAt = new DeclaredCursor(declared);
  const score = new ScoreAccumulator();
  let request: ResourceAmounts | undefined;
  let podStartMs = firstMs;
  let containerStartMs = firstMs;
  for (let i = 0; i < count; i++) {
    const nowMs = timesMs[i] ?? 0;
    const cpu = cpuMillicores[i] ?? 0;
    const memory = memoryBytes[i] ?? 0;
    const size = declaredAt.at(nowMs);
    request ??= size;
    const scored = nowMs >= scoreFromMs;
    let quickOom = false;
    if (request !== undefined) {
      onStep?.(nowMs, request);
      if (scored)
        score.addStep(
          stepMs(timesMs, i),
          request.cpu,
          request.memory,
          cpu,
          memory,
        );
      if (memory > request.memory) {
        model.recordOom(nowMs, request.memory);
        if (scored) score.oomEvents += 1;
        quickOom =
          nowMs - containerStartMs < UPDATER_DEFAULTS.evictAfterOomThresholdMs;
        containerStartMs = nowMs;
      }
    }
    model.addUsage(nowMs, cpu, memory);
    const recommendation = model.recommend(nowMs, size);
    if (request === undefined) {
      request = recommendation.target;
      continue;
    }
    if (
      shouldApply(
        mode,
        recommendation,
        { request, podStartMs, quickOom },
        nowMs,
      )
    ) {
      request = recommendation.target;
      if (scored) score.requestChanges += 1;
      if (mode === 'evict') podStartMs = containerStartMs = nowMs;
    }
  }
  return score.score(seriesId, warmupMs);
}

/** How long sample `i` stands for: until the next sample, at most an hour. */
function stepMs(timesMs: readonly number[], i: number): number {
  const next = timesMs[i + 1];
  const previous = timesMs[i - 1];
  const gap =
    next !== undefined
      ? next - (timesMs[i] ?? 0)
      : previous !== undefined
        ? (timesMs[i] ?? 0) - previous
        : 0;
  return Math.min(gap, LONGEST_STEP_MS);
}
