import {
  answerMetricQuery,
  metricTimestamp,
  type MetricInputs,
  type UsageRead,
} from './metric-answer.js';
import type { MetricAnswer, MetricQuery } from './metric-plan.js';
import { restamped } from './metric-value-list.js';

/** How many answers are kept, and how many bytes of bodies at most. */
export interface KeptAnswersLimits {
  answers: number;
  bytes: number;
}

/**
 * The HPA controller asks each of its metrics every 15 s, a few per namespace: a few
 * hundred answers covers hundreds of HPAs. Bodies are about 260 bytes a pod, so 32 MiB
 * holds the answers of about 130,000 pods, an eighth of the 256 MiB the adapter requests
 * (deploy/metrics-adapter), before the oldest answer is dropped.
 */
export const KEPT_ANSWERS_LIMITS: KeptAnswersLimits = {
  answers: 512,
  bytes: 32 * 2 ** 20,
};

/**
 * What says the pods an answer was worked out from are the same, compared part by part
 * by identity: the revisions of the namespace's pods and of their templates. Any of them
 * new, or another usage read object, means the answer is worked out again.
 */
export type AnswerInputsRevision = readonly unknown[];

interface Kept {
  revision: AnswerInputsRevision;
  usage: UsageRead;
  answer: MetricAnswer;
  /** The whole second (Unix time) the answer is stamped with. */
  second: number;
}

/** `answerMetricQuery` for a `key`, kept while `revision` holds. */
export type KeptAnswers = (
  key: string,
  query: MetricQuery,
  inputs: MetricInputs,
  revision: AnswerInputsRevision,
) => MetricAnswer;

/**
 * `answerMetricQuery`, with each answer of a `pods/...` query kept per `key` (the request's
 * path and query string, which decide the query) while the namespace's pods and their
 * templates (`revision`) and the usage read (`inputs.usage`, by identity) stay the same:
 * the HPA asks the same query
 * again and again between two usage reads, and then only the timestamp is new, written
 * into a copy of the kept body (`restamped`). So the per-pod work (picking, views, the
 * remembered measures, one item copy each) runs once per change, not per request, and an
 * answer is the same bytes as `answerMetricQuery` gives for the same inputs.
 *
 * Not kept: a Deployment's answer (its selector is read per request) and an answer when
 * the usage read failed (the next request reads again). Bounded by `limits`: the least
 * recently asked answers are dropped first, past the count or the bodies' bytes.
 */
export function keptAnswers(
  limits: KeptAnswersLimits = KEPT_ANSWERS_LIMITS,
): KeptAnswers {
  // A Map iterates in insertion order: deleting and setting again on every hit keeps the
  // least recently asked first.
  const kept = new Map<string, Kept>();
  let bytes = 0;
  const drop = (key: string, entry: Kept) => {
    kept.delete(key);
    bytes -= entry.answer.body.length;
  };
  const keep = (key: string, entry: Kept) => {
    kept.set(key, entry);
    bytes += entry.answer.body.length;
    for (const [oldest, old] of kept) {
      if (kept.size <= limits.answers && bytes <= limits.bytes) break;
      drop(oldest, old);
    }
  };
  return (key, query, inputs, revision) => {
    const { usage } = inputs;
    if (query.target.kind !== 'pods' || 'failure' in usage)
      return answerMetricQuery(query, inputs);
    // Timestamps are to the second: within one, the kept body is the answer.
    const second = Math.floor(inputs.now.getTime() / 1000);
    const before = kept.get(key);
    if (before !== undefined) {
      drop(key, before);
      if (
        sameUsage(before.usage, usage) &&
        sameRevision(before.revision, revision)
      ) {
        const answer = stampedAgain(before, second, inputs.now);
        if (answer !== undefined) {
          keep(key, { revision, usage, answer, second });
          return answer;
        }
      }
    }
    const answer = answerMetricQuery(query, inputs);
    keep(key, { revision, usage, answer, second });
    return answer;
  };
}

/** The kept answer stamped `now`; undefined when it cannot be (see `restamped`). */
function stampedAgain(
  kept: Kept,
  second: number,
  now: Date,
): MetricAnswer | undefined {
  const { answer } = kept;
  if (kept.second === second || answer.stamped === undefined) return answer;
  const stamped = restamped(answer.stamped, metricTimestamp(now));
  return stamped && { ...answer, body: stamped.body, stamped };
}

/** The same read of the usage source: the app's usage cache hands out one object per read. */
function sameUsage(a: UsageRead, b: UsageRead): boolean {
  return 'usage' in a && 'usage' in b && a.usage === b.usage;
}

function sameRevision(
  a: AnswerInputsRevision,
  b: AnswerInputsRevision,
): boolean {
  return a.length === b.length && a.every((part, index) => part === b[index]);
}
