import fc from 'fast-check';
import { parseCpuMillicores } from '@tandem/vpa-api';
import { answerMetricQuery, pickedFrom } from './metric-answer.js';
import { parseMetricPath } from './metric-path.js';
import { planMetricRequest } from './metric-plan.js';
import { wholePercent } from './metric-quantity.js';
import { container, pod, used } from './pod.fixtures.js';

/**
 * ADR 0023's claim, on the HPA's own arithmetic (k8s.io/kubernetes
 * pkg/controller/podautoscaler/replica_calculator.go, `calcPlainMetricReplicas` and
 * `GetResourceReplicas`, with metrics/utilization.go): the replicas an HPA asks for on
 * Tandem's whole-percent Pods metric differ from the native HPA's on the same pods only
 * where the native HPA's own answer changes within one percentage point of load.
 */

/** The HPA's default --horizontal-pod-autoscaler-tolerance. */
const TOLERANCE = 0.1;

/** `math.Abs(1.0-usageRatio) <= tolerance` holds; else `ceil(usageRatio × ready)`. */
function desiredReplicas(usageRatio: number, ready: number): number {
  return Math.abs(1.0 - usageRatio) <= TOLERANCE
    ? ready
    : Math.ceil(usageRatio * ready);
}

/** Native: `int32(metricsTotal × 100 / requestsTotal)`, one truncation of the aggregate. */
function nativePercent(millicores: readonly number[], request: number): number {
  const total = millicores.reduce((sum, m) => sum + m, 0);
  return Math.floor((total * 100) / (request * millicores.length));
}

/**
 * A Pods metric: Tandem's served values as the HPA reads them (`MilliValue()`), averaged
 * with `GetMetricUsageRatio`'s integer division, in percent.
 */
function tandemAverage(millicores: readonly number[], request: number): number {
  const declared = container('app', { cpu: `${request}m` });
  const path =
    '/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/pods/*/cpu_utilization_of_original_request';
  const plan = planMetricRequest(parseMetricPath(path), path, {});
  if (!('query' in plan)) throw new Error('planned an answer');
  const names = millicores.map((_, index) => `web-${index}`);
  const { body } = answerMetricQuery(plan.query, {
    pods: pickedFrom(names.map((name) => pod([declared], { name }))),
    usage: {
      usage: new Map(
        names.map((name, index) => [
          name,
          [used('app', millicores[index] ?? 0)],
        ]),
      ),
    },
    sourceName: 'metrics.k8s.io',
    now: new Date(0),
  });
  const values = (
    JSON.parse(body.toString()) as { items: { value: string }[] }
  ).items.map((item) => parseCpuMillicores(item.value));
  const total = values.reduce((sum, m) => sum + m, 0);
  return Math.floor(total / values.length) / 1000;
}

const deployment = fc
  .record({
    request: fc.integer({ min: 10, max: 2000 }),
    replicas: fc.integer({ min: 1, max: 12 }),
    target: fc.integer({ min: 10, max: 150 }),
  })
  .chain(({ request, replicas, target }) =>
    fc.record({
      request: fc.constant(request),
      target: fc.constant(target),
      millicores: fc.array(fc.integer({ min: 0, max: 3 * request }), {
        minLength: replicas,
        maxLength: replicas,
      }),
    }),
  );

describe('whole percent (ADR 0023)', () => {
  it('truncates as the native HPA does, forgiving float noise', () => {
    expect(
      [47.75, 48.999, 0.5, 70, 69.99999999999999].map(wholePercent),
    ).toEqual([47, 48, 0, 70, 70]);
  });

  it('asks for what the native HPA asks for, except where the native answer itself changes within one point', () => {
    fc.assert(
      fc.property(deployment, ({ request, target, millicores }) => {
        const ready = millicores.length;
        const native = nativePercent(millicores, request);
        const tandem = tandemAverage(millicores, request);
        // The mean of per-pod truncations lies within a point of the one truncation
        // (and the HPA's own milli-unit division of the sum).
        expect(tandem).toBeGreaterThan(native - 1.001);
        expect(tandem).toBeLessThan(native + 1);
        const asked = desiredReplicas(tandem / target, ready);
        expect(asked).toBeGreaterThanOrEqual(
          desiredReplicas((native - 1.001) / target, ready),
        );
        expect(asked).toBeLessThanOrEqual(
          desiredReplicas((native + 1) / target, ready),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('asks for exactly what the native HPA asks for with one pod, or pods at the same utilization', () => {
    fc.assert(
      fc.property(
        deployment,
        fc.boolean(),
        ({ request, target, millicores }, onePod) => {
          const first = millicores[0] ?? 0;
          const same = onePod ? [first] : millicores.map(() => first);
          const ready = same.length;
          expect(
            desiredReplicas(tandemAverage(same, request) / target, ready),
          ).toBe(desiredReplicas(nativePercent(same, request) / target, ready));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('where rounding would hold ten pods at 44.5 % of a 50 % target, truncation scales in to 9 with the native HPA', () => {
    const pods = Array.from({ length: 10 }, () => 178); // of 400m: 44.5 %
    expect({
      native: desiredReplicas(nativePercent(pods, 400) / 50, 10),
      tandem: desiredReplicas(tandemAverage(pods, 400) / 50, 10),
      rounded: desiredReplicas(Math.round(44.5) / 50, 10),
    }).toEqual({ native: 9, tandem: 9, rounded: 10 });
  });
});
