import fc from 'fast-check';
import {
  anyChange,
  anyMetricRequest,
  anyView,
} from './answer-arbitraries.fixtures.js';
import { keptAnswers } from './kept-answers.js';
import {
  answerMetricQuery,
  pickedFrom,
  type MetricInputs,
  type UsageRead,
} from './metric-answer.js';
import { parseMetricPath } from './metric-path.js';
import { planMetricRequest, type MetricQuery } from './metric-plan.js';
import { annotationFor, container, pod, used } from './pod.fixtures.js';
import type { PodForMetrics } from './pod-for-metrics.js';

const V2 = '/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop';
const START = Date.parse('2026-01-01T12:00:00.123Z');

function queryOf(path: string) {
  const plan = planMetricRequest(parseMetricPath(path), path, {});
  if (!('query' in plan)) throw new Error(`no query: ${path}`);
  return plan.query;
}

const web = (name: string, millicores = '400m') => {
  const app = container('app', { cpu: millicores, memory: '100Mi' });
  return pod([app], { name, annotations: annotationFor([app]) });
};

const inputsOf = (
  pods: readonly PodForMetrics[],
  usage: UsageRead,
  now: number,
): MetricInputs => ({
  pods: pickedFrom(pods),
  usage,
  deployment: { selector: { matchLabels: { app: 'a' } } },
  sourceName: 'metrics.k8s.io',
  now: new Date(now),
});

describe('keptAnswers', () => {
  // A step changes or deletes a pod (the pods' revision moves), reads usage anew (a new
  // read object), fails to read it, lets time pass (within the second, by seconds, or past
  // year 9999 where a timestamp is longer), or asks a query.
  const step = fc.oneof(
    anyChange,
    fc.constant({ kind: 'failure' as const }),
    fc
      .constantFrom(0, 400, 1_000, 61_000, 253_402_300_800_000 - START)
      .map((ms) => ({ kind: 'time' as const, ms })),
    anyMetricRequest.map((asked) => ({ kind: 'ask' as const, asked })),
  );

  it('answers byte for byte what answerMetricQuery gives, after any sequence of changes', () => {
    fc.assert(
      fc.property(
        fc.array(anyView),
        fc.array(step, { minLength: 1, maxLength: 40, size: 'max' }),
        fc.integer({ min: 1, max: 3 }),
        (first, steps, answers) => {
          const kept = keptAnswers({ answers, bytes: 4096 });
          const pods = new Map(first.map((p) => [p.name, p]));
          let podsRevision = 0;
          let read: UsageRead = { usage: new Map() };
          let now = START;
          for (const s of steps) {
            if (s.kind === 'pod') pods.set(s.changed.name, s.changed);
            else if (s.kind === 'delete') pods.delete(s.name);
            else if (s.kind === 'usage')
              read = {
                usage: new Map([
                  ...('usage' in read ? read.usage : []),
                  s.read,
                ]),
              };
            else if (s.kind === 'failure') read = { failure: 'timed out' };
            else if (s.kind === 'time') now += s.ms;
            if (s.kind === 'pod' || s.kind === 'delete') podsRevision += 1;
            if (s.kind !== 'ask') continue;
            const { version, target, metric, query: asked } = s.asked;
            const path = `/apis/custom.metrics.k8s.io/${version}/namespaces/shop/${target}/${metric}`;
            const plan = planMetricRequest(parseMetricPath(path), path, asked);
            // Deployments have utilization metrics only: the rest is answered unread.
            if (!('query' in plan)) continue;
            const { query } = plan;
            const answer = kept(
              `${path}?${new URLSearchParams(asked).toString()}`,
              query,
              inputsOf([...pods.values()], read, now),
              [podsRevision],
            );
            const fresh = answerMetricQuery(
              query,
              inputsOf(structuredClone([...pods.values()]), read, now),
            );
            expect(answer.body.toString()).toBe(fresh.body.toString());
            expect({ ...answer, body: undefined, stamped: undefined }).toEqual({
              ...fresh,
              body: undefined,
              stamped: undefined,
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  const all = queryOf(`${V2}/pods/*/cpu_usage`);
  const read: UsageRead = { usage: new Map([['web-1', [used('app', 5)]]]) };

  it('picks no pod again while the revision holds, only stamps the new time', () => {
    const kept = keptAnswers();
    let picks = 0;
    const inputs = (now: number): MetricInputs => ({
      ...inputsOf([web('web-1')], read, now),
      pods: (picked) => {
        picks += 1;
        return pickedFrom([web('web-1')])(picked);
      },
    });
    const first = kept('all', all, inputs(START), [1]);
    const again = kept('all', all, inputs(START + 500), [1]);
    expect(again).toBe(first);
    const later = kept('all', all, inputs(START + 2_000), [1]);
    expect(picks).toBe(1);
    expect(later.body.toString()).toBe(
      first.body.toString().replace('12:00:00Z', '12:00:02Z'),
    );
    kept('all', all, inputs(START + 2_000), [2]);
    expect(picks).toBe(2);
  });

  it('drops the least recently asked answer past its limits', () => {
    const kept = keptAnswers({ answers: 2, bytes: 1 << 20 });
    const calls: string[] = [];
    const ask = (key: string, query: MetricQuery) =>
      kept(
        key,
        query,
        {
          ...inputsOf([], read, START),
          pods: () => {
            calls.push(key);
            return [];
          },
        },
        [1],
      );
    const one = queryOf(`${V2}/pods/web-1/cpu_usage`);
    ask('all', all);
    ask('one', one);
    ask('all', all);
    ask('third', all);
    ask('all', all);
    ask('one', one);
    expect(calls).toEqual(['all', 'one', 'third', 'one']);
    const small = keptAnswers({ answers: 10, bytes: 10 });
    const body = small('all', all, inputsOf([], read, START), [1]);
    expect(small('all', all, inputsOf([], read, START), [1])).not.toBe(body);
  });
});
